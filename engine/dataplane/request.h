// What flows through a data plane: requests with their deadlines, the batches a data plane
// sends to execution, and the reasons a request can be dropped. Times are instants on the
// run's clock (nanoseconds since the run began, whether simulated or live).
#pragma once

#include <cstdint>
#include <deque>
#include <optional>
#include <string_view>
#include <vector>

#include "model/core/time.h"

namespace servescope::engine {

using Time = Duration;  // an instant: time since the run's origin
inline constexpr Time kNever = Duration::max();
inline constexpr Time kMinusInfinity = Duration::nanoseconds(INT64_MIN / 4);

using RequestId = std::uint64_t;
using BatchId = std::uint64_t;
using TransferId = std::uint64_t;

struct Request {
  RequestId id = 0;
  std::uint32_t model = 0;   // index into the data plane's model list
  std::uint32_t target = 0;  // index of the workload target that sent it (for per-target metrics)
  Time arrival;
  Time deadline;
  // A request a data plane made itself as part of another (a module of an application request):
  // it never arrived, and its completion or drop is not an outcome of its own.
  bool internal = false;
};

enum class DropReason : std::uint8_t {
  DeadlineUnreachable,  // cannot finish by its deadline even in a batch of one
  WindowDrop,           // dropped early so the batch could stay at its target size (seed 002 §2.2)
  Preempted,            // its batch was preempted and it could not be rescheduled in time
  NoCapacity,           // no GPU serves its model under the current plan
  WorkerLost,           // the worker running it failed (live mode)
};
std::string_view to_string(DropReason reason);
std::optional<DropReason> parse_drop_reason(std::string_view text);
inline constexpr int kDropReasonCount = 5;

// A batch handed to an executor: run `requests` of `model` on `gpu` starting at `start`.
// `predicted_end` is what the data plane expects; executors report the real end.
struct Batch {
  BatchId id = 0;
  std::uint32_t model = 0;
  std::uint32_t gpu = 0;  // index into the data plane's GPU list
  Time start;
  Time predicted_end;
  std::vector<Request> requests;
  // Pipelines run a request as several stages (partitions, seed 000); only the last one
  // completes it. Single-stage data planes leave these as they are.
  std::uint32_t stage = 0;
  bool final_stage = true;
  // Which of the model's executables runs: 0 is the whole network; a pipeline numbers its
  // partitions (the executor's timing table has a row per model and kernel).
  std::uint32_t kernel = 0;
  // When the data plane could have started this batch (Symphony's schedulable window, seed 002
  // §3.2: from when a GPU and the batch are ready to the latest start that meets the head's
  // deadline); empty (open == close) for data planes without one. For timelines.
  Time window_open, window_close;
};

// Data moving between two GPUs' servers (a pipeline's feature maps, seed 000 §4): it holds the
// sender's uplink and the receiver's downlink, and starts no earlier than `not_before`.
struct Transfer {
  TransferId id = 0;
  std::uint32_t from_gpu = 0;
  std::uint32_t to_gpu = 0;
  std::uint64_t bytes = 0;
  Time not_before;
  BatchId batch = 0;              // the batch whose output moves
  std::vector<Request> requests;  // whose data it carries
};

struct TransferDone {
  TransferId id = 0;
  BatchId batch = 0;
  std::uint32_t from_gpu = 0;
  std::uint32_t to_gpu = 0;
  Time start;
  Time end;
};

// Puts `r` into a queue kept in deadline order, after requests with the same deadline. With one
// SLO per queue that is arrival order, and this is a push_back.
void insert_by_deadline(std::deque<Request>& queue, const Request& r);

struct BatchDone {
  BatchId id = 0;
  std::uint32_t gpu = 0;
  std::uint32_t model = 0;
  std::uint32_t size = 0;
  Time start;
  Time end;
};

}  // namespace servescope::engine
