#include "model/profile/contention_model.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <utility>

namespace servescope {
namespace {

// y at x over points sorted by x: linear between them, the end values held beyond the ends.
double interpolate(const std::vector<std::pair<double, double>>& points, double x) {
  if (x <= points.front().first) return points.front().second;
  for (std::size_t i = 1; i < points.size(); ++i)
    if (x <= points[i].first) {
      const auto& [x0, y0] = points[i - 1];
      const auto& [x1, y1] = points[i];
      return y0 + (x - x0) / (x1 - x0) * (y1 - y0);
    }
  return points.back().second;
}

}  // namespace

double ContentionModel::slowdown(GpuShare share, int batch, int slots) const {
  if (slots <= 1 || samples.empty()) return 1;
  const ContentionSample* nearest = &samples.front();
  for (const auto& s : samples)
    if (std::abs(s.share.fraction() - share.fraction()) < std::abs(nearest->share.fraction() - share.fraction()))
      nearest = &s;
  const GpuShare measured = nearest->share;
  // [slots][batch] → (Σ runs·slowdown, Σ runs): repeated measurements count by their runs.
  std::map<int, std::map<int, std::pair<double, double>>> grid;
  for (const auto& s : samples)
    if (s.share == measured) {
      auto& cell = grid[s.slots][s.batch];
      const double weight = std::max(1, s.runs);
      cell.first += weight * s.slowdown;
      cell.second += weight;
    }
  std::vector<std::pair<double, double>> over_slots{{1.0, 1.0}};
  for (const auto& [k, by_batch] : grid) {
    std::vector<std::pair<double, double>> over_batch;
    for (const auto& [b, cell] : by_batch)
      over_batch.emplace_back(b, cell.first / cell.second);
    over_slots.emplace_back(k, interpolate(over_batch, batch));
  }
  return std::max(1.0, interpolate(over_slots, slots));
}

void ContentionModel::merge(const ContentionModel& other) {
  samples.insert(samples.end(), other.samples.begin(), other.samples.end());
  spell = std::max(spell, other.spell);
  if (source.empty())
    source = other.source;
  else if (!other.source.empty() && other.source != source)
    source += "; " + other.source;
}

}  // namespace servescope
