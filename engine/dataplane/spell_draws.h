// Batch times that come in spells (issue 46, "the simulator runs on them"): on a machine whose
// cores something else takes in turns, a slow batch is followed by slow ones, and a queue that
// independent draws would clear in time builds up. The quantile level at which each batch's time
// is drawn from its entry's measured distribution (ExecutionTimes::sample) is then not
// independent per batch but follows, per slot, a Gaussian AR(1) process in its normal score z:
//
//     z_next = a · z + √(1 − a²) · ε,   a = exp(−Δt / spell),   level = Φ(z_next)
//
// where Δt is the time since the slot's previous batch started and `spell` the device type's
// measured spell length (ContentionModel::spell, fitted by `calibrate`). Each level is still
// uniform, so every batch keeps the measured distribution; only their order in time changes. A
// slot with no spell draws each level on its own, exactly the stream independent draws give.
// The simulator and the live scheduler (for emulated workers) draw through it alike.
#pragma once

#include <cstdint>
#include <random>
#include <vector>

#include "model/core/time.h"

namespace servescope::engine {

class SpellDraws {
 public:
  // `spell_by_slot[g]`: slot g's spell length; zero or missing: independent draws.
  SpellDraws(std::uint64_t seed, std::vector<Duration> spell_by_slot);
  // The quantile level in [0, 1) of the batch that starts on `slot` at `start`.
  double next(std::uint32_t slot, Time start);
  bool any_spells() const { return any_; }

 private:
  struct Slot {
    Duration spell;
    bool drawn = false;
    Time last;
    double z = 0;
  };
  std::mt19937_64 rng_;
  std::vector<Slot> slots_;
  bool any_ = false;
};

}  // namespace servescope::engine
