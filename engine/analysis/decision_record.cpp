#include "engine/analysis/decision_record.h"

#include <climits>

#include "model/io/json_cursor.h"

namespace servescope::engine {
namespace {

// The block itself, or the record's; nullopt where neither holds a decision.
std::optional<JsonCursor> overhead_block(const JsonCursor& doc) {
  std::optional<JsonCursor> block;
  if (doc.value().is_object() && doc.value().contains("count")) {
    block = doc;
  } else if (const auto scheduler = doc.find("scheduler")) {
    block = scheduler->find("dispatch_overhead_us");
  }
  if (!block || block->int_or("count", 0, 0, INT64_MAX) == 0) return std::nullopt;
  return block;
}

}  // namespace

nlohmann::json decision_record_json(const LatencyHistogram& dispatch_overhead) {
  auto quantiles = nlohmann::json::array();
  for (const double level : kDistributionLevels)
    quantiles.push_back(dispatch_overhead.quantile(level).to_us());
  return {{"mean", dispatch_overhead.mean_ns() / 1e3},
          {"p50", dispatch_overhead.quantile(0.5).to_us()},
          {"p99", dispatch_overhead.quantile(0.99).to_us()},
          {"count", dispatch_overhead.count()},
          {"quantiles_us", std::move(quantiles)}};
}

std::optional<LatencyDistribution> recorded_decision_lateness(const nlohmann::json& doc, const std::string& name) {
  const JsonCursor root(doc, name);
  const auto block = overhead_block(root);
  if (!block) return std::nullopt;
  const auto levels = block->find("quantiles_us");
  if (!levels) return std::nullopt;
  if (levels->size() != kDistributionLevels.size())
    levels->fail("expected " + std::to_string(kDistributionLevels.size()) + " quantiles, at p5 to p99.9");
  LatencyDistribution d;
  d.runs = static_cast<int>(block->int_or("count", 0, 0, INT_MAX));
  for (std::size_t i = 0; i < levels->size(); ++i) {
    const auto value = levels->element(i).as_duration_us();
    if (!d.quantiles.empty() && value < d.quantiles.back()) levels->element(i).fail("quantiles must not decrease");
    d.quantiles.push_back(value);
  }
  return d;
}

void draw_decision_lateness(SimulationSpec& spec, LatencyDistribution lateness) {
  if (!spec.controller) spec.controller.emplace();
  spec.controller->lateness = std::move(lateness);
  spec.controller->lateness_seed = spec.seed;
}

std::optional<ControllerCost> recorded_decision_cost(const nlohmann::json& doc, const std::string& name) {
  const JsonCursor root(doc, name);
  const auto block = overhead_block(root);
  if (!block) return std::nullopt;
  return ControllerCost{1, Duration::from_us(block->double_or("mean", 0, 0, 1e9))};
}

}  // namespace servescope::engine
