#include "engine/dataplane/request.h"

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

}  // namespace servescope::engine
