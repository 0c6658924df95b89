#include "model/profile/measured_table.h"

#include <algorithm>
#include <stdexcept>
#include <utility>

#include "model/profile/isotonic_fit.h"

namespace servescope {

BlockTable measured_block_table(std::string gpu, GpuShare share, const std::vector<int>& batches,
                                const std::vector<std::vector<LatencyDistribution>>& measured) {
  BlockTable table;
  table.gpu = std::move(gpu);
  table.share = share;
  for (const auto& block : measured) {
    if (block.size() != batches.size()) throw std::invalid_argument("a block's distributions do not match its batches");
    std::vector<double> runs;
    for (const auto& d : block)
      runs.push_back(d.runs);
    // Every level fitted monotone over the batch sizes, so that the median, the 99th percentile
    // and the distribution agree with each other.
    std::vector<std::vector<Duration>> levels;
    for (std::size_t level = 0; level < kDistributionLevels.size(); ++level) {
      std::vector<Duration> values;
      for (const auto& d : block)
        values.push_back(d.quantiles.at(level));
      levels.push_back(isotonic_fit(values, runs));
    }
    std::vector<LatencyDistribution> row(batches.size());
    std::vector<Duration> medians, tail;
    for (std::size_t i = 0; i < batches.size(); ++i) {
      row[i].runs = block[i].runs;
      // Fitted level by level, a batch's quantiles may cross where two levels were pooled
      // differently: the running maximum over levels restores their order.
      for (const auto& fitted : levels)
        row[i].quantiles.push_back(
            std::max(fitted[i], row[i].quantiles.empty() ? Duration() : row[i].quantiles.back()));
      medians.push_back(row[i].median());
      tail.push_back(row[i].quantile(0.99));
    }
    table.blocks.emplace_back(batches, std::move(medians));
    table.p99.emplace_back(batches, std::move(tail));
    table.distributions.push_back(std::move(row));
  }
  return table;
}

}  // namespace servescope
