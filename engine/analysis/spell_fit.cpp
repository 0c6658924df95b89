#include "engine/analysis/spell_fit.h"

#include <algorithm>
#include <cmath>
#include <numeric>

#include "engine/core/normal_scores.h"

namespace servescope::engine {

std::vector<double> normal_scores(const std::vector<Duration>& sample) {
  std::vector<std::size_t> order(sample.size());
  std::iota(order.begin(), order.end(), std::size_t{0});
  std::ranges::stable_sort(order, [&](std::size_t a, std::size_t b) { return sample[a] < sample[b]; });
  std::vector<double> out(sample.size());
  const auto n = static_cast<double>(sample.size());
  // Equal values share their ranks' mean: a run of equal times is no spell.
  for (std::size_t first = 0; first < order.size();) {
    std::size_t last = first;
    while (last + 1 < order.size() && sample[order[last + 1]] == sample[order[first]])
      ++last;
    const double rank = (static_cast<double>(first) + static_cast<double>(last)) / 2;
    for (std::size_t k = first; k <= last; ++k)
      out[order[k]] = normal_quantile((rank + 0.5) / n);
    first = last + 1;
  }
  return out;
}

SpellFit fit_spell(const std::vector<std::vector<std::pair<Time, double>>>& scored, int min_pairs) {
  struct Pair {
    double gap_s, from, to;
  };
  std::vector<Pair> pairs;
  for (const auto& slot : scored)
    for (std::size_t i = 1; i < slot.size(); ++i)
      pairs.push_back({std::max(0.0, (slot[i].first - slot[i - 1].first).to_s()), slot[i - 1].second, slot[i].second});
  SpellFit fit;
  fit.pairs = static_cast<int>(pairs.size());
  if (pairs.empty()) return fit;
  double xy = 0, xx = 0, yy = 0;
  for (const auto& p : pairs) {
    xy += p.from * p.to;
    xx += p.from * p.from;
    yy += p.to * p.to;
  }
  fit.lag1 = xx > 0 && yy > 0 ? xy / std::sqrt(xx * yy) : 0;
  if (fit.pairs < min_pairs || !(xx > 0 && yy > 0)) return fit;
  // The log-likelihood of the pairs' second scores given their first, up to a constant; a
  // correlation of 0 is the independent model.
  const auto log_likelihood = [&](double spell_s) {
    double sum = 0;
    for (const auto& p : pairs) {
      const double a = spell_s > 0 ? std::exp(-p.gap_s / spell_s) : 0.0;
      const double v = std::max(1e-6, 1 - a * a);
      const double r = p.to - a * p.from;
      sum += -0.5 * std::log(v) - r * r / (2 * v);
    }
    return sum;
  };
  const double independent = log_likelihood(0);
  double best = independent, best_spell = 0;
  for (int step = 0; step <= 140; ++step) {
    const double spell_s = 1e-4 * std::pow(10.0, step / 20.0);  // 0.1 ms to 1,000 s, 20 per decade
    if (const double l = log_likelihood(spell_s); l > best) {
      best = l;
      best_spell = spell_s;
    }
  }
  // One parameter more than independence: kept only where the likelihood ratio says so at 95 %
  // (χ² with one degree of freedom, 3.84, halved for the log).
  if (best - independent >= 1.92) fit.spell = Duration::from_s(best_spell);
  return fit;
}

}  // namespace servescope::engine
