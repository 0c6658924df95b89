// Something the serving system did or suffered that explains what follows on a timeline (issue 47
// §2; PPipe digest §2.9 for plan switches, docs/protocol.md "Liveness and faults" for workers): a
// worker lost, late with a batch, or back; a plan switch beginning its flush and ending it; a
// refusal. The live scheduler's log lines, kept with the run as it streams and records it, so that
// a stall of every GPU on the timeline carries its cause, live and when the recording is opened.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "model/core/time.h"

namespace servescope::engine {

enum class NoticeKind : std::uint8_t {
  WorkerLost,    // its connection ended or it stopped answering: its batches are lost
  WorkerLate,    // a batch's report is overdue: planning goes on without its GPUs
  WorkerBack,    // a worker joined, or answered again after being late
  FlushBegan,    // a plan switch holds new requests while the current plane flushes
  PlanSwitched,  // the new plan took over
  Refused,       // the scheduler refused something asked of it (a plan, a command)
};
inline constexpr int kNoticeKindCount = 6;
static_assert(static_cast<int>(NoticeKind::Refused) + 1 == kNoticeKindCount, "a new kind must be counted");
std::string_view to_string(NoticeKind kind);
std::optional<NoticeKind> parse_notice_kind(std::string_view text);
// Whether a notice of this kind is bad news for the requests (drawn in the late colour).
bool is_trouble(NoticeKind kind);

struct RunNotice {
  Time time;
  NoticeKind kind = NoticeKind::WorkerLost;
  std::string text;                 // the scheduler's log line
  std::vector<std::uint32_t> gpus;  // the slots it concerns (a worker's); empty: the whole run
};

// Bounds a reader holds a notice to (files and frames are untrusted).
inline constexpr std::size_t kMaxNoticeTextBytes = 4096;

}  // namespace servescope::engine
