// Wall time since a moment, in seconds: what solvers report as their solve time and check against
// their time limits. Wall time is for reporting and limits only; nothing the engine computes
// depends on it, so results stay deterministic.
#pragma once

#include <chrono>

namespace servescope::engine {

using WallClock = std::chrono::steady_clock;

inline double seconds_since(WallClock::time_point start) {
  return std::chrono::duration<double>(WallClock::now() - start).count();
}

}  // namespace servescope::engine
