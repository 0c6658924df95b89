#include "engine/ppipe/prepartition.h"

#include <cmath>
#include <limits>
#include <numeric>

#include "model/core/error.h"

namespace servescope::engine {

namespace {

void check_shape(std::size_t layers, int blocks) {
  if (blocks < 1) throw QueryError("pre-partitioning needs at least one block");
  if (layers < static_cast<std::size_t>(blocks))
    throw QueryError("cannot cut " + std::to_string(layers) + " layers into " + std::to_string(blocks) + " blocks");
}

}  // namespace

BlockBoundaries greedy_prepartition(const std::vector<double>& layer_runtime, int blocks) {
  check_shape(layer_runtime.size(), blocks);
  for (const double r : layer_runtime)
    if (!(r >= 0)) throw QueryError("layer runtimes must be non-negative");
  const int layers = static_cast<int>(layer_runtime.size());
  double remaining = std::accumulate(layer_runtime.begin(), layer_runtime.end(), 0.0);
  BlockBoundaries out{0};
  int next = 0;
  for (int b = 0; b < blocks - 1; ++b) {
    const double target = remaining / (blocks - b);
    const int last_allowed = layers - (blocks - b - 1);  // leave one layer per later block
    double sum = layer_runtime[static_cast<std::size_t>(next++)];
    while (next < last_allowed &&
           std::abs(sum + layer_runtime[static_cast<std::size_t>(next)] - target) < std::abs(sum - target))
      sum += layer_runtime[static_cast<std::size_t>(next++)];
    remaining -= sum;
    out.push_back(next);
  }
  out.push_back(layers);
  return out;
}

MinCutPartition min_cut_prepartition(const std::vector<std::vector<double>>& layer_runtime,
                                     const std::vector<std::int64_t>& live_bytes, int blocks,
                                     const MinCutOptions& options) {
  if (layer_runtime.empty()) throw QueryError("min-cut pre-partitioning needs runtimes on at least one GPU type");
  const auto layers = layer_runtime.front().size();
  check_shape(layers, blocks);
  for (const auto& row : layer_runtime)
    if (row.size() != layers) throw QueryError("every GPU type needs a runtime for every layer");
  if (live_bytes.size() != layers + 1)
    throw QueryError("live_bytes needs one entry per cut position, 0 to " + std::to_string(layers));
  // Prefix sums per GPU type, so a block's runtime share is O(1) per type.
  std::vector<std::vector<double>> prefix;
  for (const auto& row : layer_runtime) {
    std::vector<double> p(layers + 1, 0.0);
    for (std::size_t l = 0; l < layers; ++l)
      p[l + 1] = p[l] + row[l];
    prefix.push_back(std::move(p));
  }
  const auto n = static_cast<std::size_t>(blocks);
  constexpr auto kInf = std::numeric_limits<std::int64_t>::max();
  for (const auto& [lo, hi] : options.bounds) {
    auto fits = [&](std::size_t a, std::size_t b) {
      for (const auto& p : prefix) {
        const double share = p[layers] > 0 ? (p[b] - p[a]) / p[layers] : 1.0 / blocks;
        if (share < lo / blocks - 1e-12 || share > hi / blocks + 1e-12) return false;
      }
      return true;
    };
    // best[k][j]: least bytes cutting layers [0, j) into k blocks; from[k][j] the last cut.
    std::vector<std::vector<std::int64_t>> best(n + 1, std::vector<std::int64_t>(layers + 1, kInf));
    std::vector<std::vector<std::size_t>> from(n + 1, std::vector<std::size_t>(layers + 1, 0));
    best[0][0] = 0;
    for (std::size_t k = 1; k <= n; ++k)
      for (std::size_t j = k; j <= layers; ++j)
        for (std::size_t i = k - 1; i < j; ++i) {
          if (best[k - 1][i] == kInf || !fits(i, j)) continue;
          const std::int64_t cost = best[k - 1][i] + (i > 0 ? live_bytes[i] : 0);
          if (cost < best[k][j]) {
            best[k][j] = cost;
            from[k][j] = i;
          }
        }
    if (best[n][layers] == kInf) continue;
    MinCutPartition out;
    out.cut_bytes = best[n][layers];
    out.bounds = {lo, hi};
    out.boundaries.assign(n + 1, 0);
    std::size_t j = layers;
    for (std::size_t k = n; k > 0; --k) {
      out.boundaries[k] = static_cast<int>(j);
      j = from[k][j];
    }
    return out;
  }
  throw QueryError("no cut into " + std::to_string(blocks) +
                   " blocks keeps every block's runtime share within the widest bounds on every GPU type");
}

}  // namespace servescope::engine
