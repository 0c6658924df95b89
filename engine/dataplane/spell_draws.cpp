#include "engine/dataplane/spell_draws.h"

#include <algorithm>
#include <cmath>
#include <numbers>

#include "engine/core/normal_scores.h"
#include "engine/core/unit_draw.h"

namespace servescope::engine {

SpellDraws::SpellDraws(std::uint64_t seed, std::vector<Duration> spell_by_slot) : rng_(seed) {
  for (const auto spell : spell_by_slot) {
    slots_.push_back({std::max(spell, Duration()), false, Time(), 0});
    any_ = any_ || spell > Duration();
  }
}

double SpellDraws::next(std::uint32_t slot, Time start) {
  if (slot >= slots_.size() || slots_[slot].spell <= Duration()) return unit_draw(rng_);
  auto& s = slots_[slot];
  // A standard normal by Box–Muller from two uniform draws (the first kept off zero).
  const double u1 = 1.0 - unit_draw(rng_), u2 = unit_draw(rng_);
  const double e = std::sqrt(-2.0 * std::log(u1)) * std::cos(2.0 * std::numbers::pi * u2);
  if (!s.drawn) {
    s.z = e;
    s.drawn = true;
  } else {
    const double gap = std::max(0.0, (start - s.last).to_s());
    const double a = std::exp(-gap / s.spell.to_s());
    s.z = a * s.z + std::sqrt(std::max(0.0, 1.0 - a * a)) * e;
  }
  s.last = std::max(s.last, start);
  return std::clamp(normal_cdf(s.z), 0.0, std::nextafter(1.0, 0.0));
}

}  // namespace servescope::engine
