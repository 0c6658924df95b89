// Fitting how long a device's slow and fast spells last (issue 46; the process is
// engine/dataplane/spell_draws.h): each batch of a live run gets the normal score of its rank
// among its entry's batches (so entries of different sizes pool), and the spell length is the
// maximum-likelihood one of the AR(1) process whose correlation between two consecutive batches
// of a slot is exp(−Δt / spell), searched on a grid from 0.1 ms to 1,000 s, or none where
// independent draws explain the run as well (a likelihood-ratio test at 95 %).
#pragma once

#include <utility>
#include <vector>

#include "model/core/time.h"

namespace servescope::engine {

struct SpellFit {
  Duration spell;   // zero: independent
  int pairs = 0;    // consecutive batches it was fitted on
  double lag1 = 0;  // the correlation of consecutive batches' scores
};

// Normal scores of a sample in its order: Φ⁻¹((rank + ½) / n), equal values at their mean rank.
std::vector<double> normal_scores(const std::vector<Duration>& sample);

// `scored[k]`: one slot's batches as (start, normal score), in start order. No spell below
// `min_pairs` consecutive pairs.
SpellFit fit_spell(const std::vector<std::vector<std::pair<Time, double>>>& scored, int min_pairs = 30);

}  // namespace servescope::engine
