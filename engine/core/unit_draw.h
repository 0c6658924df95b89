// A draw in [0, 1) from a seeded generator, made from its 53 high bits by hand: the standard
// library's uniform_real_distribution is not specified bit for bit, and a run reproduced from
// its seed (the simulator's batch times and jitter, the live scheduler's, the emulated worker's)
// must draw the same numbers on every platform.
#pragma once

#include <random>

namespace servescope::engine {

inline double unit_draw(std::mt19937_64& rng) {
  return static_cast<double>(rng() >> 11) * 0x1.0p-53;
}

}  // namespace servescope::engine
