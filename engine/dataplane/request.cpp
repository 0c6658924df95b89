#include "engine/dataplane/request.h"

#include <algorithm>

#include "model/core/text.h"

namespace servescope::engine {

std::string_view to_string(DropReason reason) {
  switch (reason) {
    case DropReason::DeadlineUnreachable:
      return "deadline-unreachable";
    case DropReason::WindowDrop:
      return "window-drop";
    case DropReason::Preempted:
      return "preempted";
    case DropReason::NoCapacity:
      return "no-capacity";
    case DropReason::WorkerLost:
      return "worker-lost";
  }
  return "?";
}

std::optional<DropReason> parse_drop_reason(std::string_view text) {
  return enum_from_string<DropReason>(text, kDropReasonCount);
}

void insert_by_deadline(std::deque<Request>& queue, const Request& r) {
  if (queue.empty() || queue.back().deadline <= r.deadline) {
    queue.push_back(r);
    return;
  }
  queue.insert(
      std::upper_bound(queue.begin(), queue.end(), r.deadline, [](Time d, const Request& q) { return d < q.deadline; }),
      r);
}

}  // namespace servescope::engine
