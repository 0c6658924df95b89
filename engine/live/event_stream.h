// The scheduler's run events as bytes (frame `events`, docs/protocol.md): every RunRecorder hook
// the live scheduler calls is appended as one record, and replaying the records into any
// recorder calls the same hooks with the same arguments. So a GUI subscriber, a recording saved
// to disk and the scheduler itself fold one stream with the simulator's own recorders
// (TimelineRecorder, MetricsCollector); nothing about a run is computed twice in two ways.
#pragma once

#include <cstdint>
#include <span>
#include <utility>
#include <vector>

#include "engine/dataplane/run_recorder.h"

namespace servescope::engine::live {

class EventEncoder final : public RunRecorder {
 public:
  void on_arrival(const Request& r) override;
  void on_drop(const Request& r, DropReason why, Time when) override;
  void on_batch(const Batch& b, Time start, Time end, bool completed) override;
  void on_complete(const Request& r, Time start, Time end) override;
  void on_dispatch(const Batch& b, Time now) override;
  void on_transfer(const Transfer& t, Time start, Time end) override;
  void on_notice(const RunNotice& n) override;

  // What was recorded since the last take(), cleared.
  std::vector<std::uint8_t> take() { return std::exchange(bytes_, {}); }
  const std::vector<std::uint8_t>& bytes() const { return bytes_; }
  std::size_t size() const { return bytes_.size(); }
  std::uint64_t records() const { return records_; }

 private:
  std::vector<std::uint8_t> bytes_;
  std::uint64_t records_ = 0;
};

// Calls `recorder`'s hooks for every record of `bytes` (whole records, as EventEncoder wrote
// them); returns how many. Throws ProtocolError on a malformed record.
std::uint64_t replay_events(std::span<const std::uint8_t> bytes, RunRecorder& recorder);

}  // namespace servescope::engine::live
