#include "engine/analysis/decision_record.h"

#include <climits>
#include <string_view>

#include "model/io/json_cursor.h"

namespace servescope::engine {
namespace {

// The record's `scheduler.KEY` block, or the record's `scheduler` object's, or (for the decisions,
// the file bench/live/fidelity.py keeps) the block itself; nullopt where none holds a count.
std::optional<JsonCursor> scheduler_block(const JsonCursor& doc, const char* key) {
  std::optional<JsonCursor> block;
  if (const auto scheduler = doc.find("scheduler")) {
    block = scheduler->find(key);
  } else if (doc.value().is_object() && doc.value().contains(key)) {
    block = doc.find(key);
  } else if (doc.value().is_object() && doc.value().contains("count") && std::string_view(key) == kDecisions) {
    block = doc;
  }
  if (!block || block->int_or("count", 0, 0, INT64_MAX) == 0) return std::nullopt;
  return block;
}

// Its quantiles at kDistributionLevels; nullopt for a block from before they were kept.
std::optional<LatencyDistribution> block_distribution(const JsonCursor& block) {
  const auto levels = block.find("quantiles_us");
  if (!levels) return std::nullopt;
  if (levels->size() != kDistributionLevels.size())
    levels->fail("expected " + std::to_string(kDistributionLevels.size()) + " quantiles, at p5 to p99.9");
  LatencyDistribution d;
  d.runs = static_cast<int>(block.int_or("count", 0, 0, INT_MAX));
  for (std::size_t i = 0; i < levels->size(); ++i) {
    const auto value = levels->element(i).as_duration_us();
    if (!d.quantiles.empty() && value < d.quantiles.back()) levels->element(i).fail("quantiles must not decrease");
    d.quantiles.push_back(value);
  }
  return d;
}

std::optional<LatencyDistribution> recorded_distribution(const nlohmann::json& doc, const std::string& name,
                                                         const char* key) {
  const JsonCursor root(doc, name);
  const auto block = scheduler_block(root, key);
  return block ? block_distribution(*block) : std::nullopt;
}

}  // namespace

nlohmann::json histogram_record_json(const LatencyHistogram& histogram) {
  auto quantiles = nlohmann::json::array();
  for (const double level : kDistributionLevels)
    quantiles.push_back(histogram.quantile(level).to_us());
  return {{"mean", histogram.mean_ns() / 1e3},
          {"p50", histogram.quantile(0.5).to_us()},
          {"p99", histogram.quantile(0.99).to_us()},
          {"count", histogram.count()},
          {"quantiles_us", std::move(quantiles)}};
}

std::optional<LatencyDistribution> recorded_decision_lateness(const nlohmann::json& doc, const std::string& name) {
  return recorded_distribution(doc, name, kDecisions);
}

LiveHops recorded_live_hops(const nlohmann::json& doc, const std::string& name) {
  LiveHops hops;
  hops.batch = recorded_distribution(doc, name, kBatchHops);
  hops.transfer = recorded_distribution(doc, name, kTransferOverheads);
  return hops;
}

void draw_decision_lateness(SimulationSpec& spec, LatencyDistribution lateness) {
  if (!spec.controller) spec.controller.emplace();
  spec.controller->lateness = std::move(lateness);
  spec.controller->lateness_seed = spec.seed;
}

void draw_live_hops(SimulationSpec& spec, LiveHops hops) {
  hops.seed = spec.seed;
  spec.hops = std::move(hops);
}

std::optional<ControllerCost> recorded_decision_cost(const nlohmann::json& doc, const std::string& name) {
  const JsonCursor root(doc, name);
  const auto block = scheduler_block(root, kDecisions);
  if (!block) return std::nullopt;
  return ControllerCost{1, Duration::from_us(block->double_or("mean", 0, 0, 1e9))};
}

}  // namespace servescope::engine
