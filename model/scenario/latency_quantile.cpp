#include "model/scenario/latency_quantile.h"

namespace servescope {

std::string quantile_name(double level) {
  if (level == 0.5) return "median";
  auto text = std::to_string(100 * level);
  text.erase(text.find_last_not_of('0') + 1);
  if (text.back() == '.') text.pop_back();
  return "p" + text;
}

bool plan_at_quantile(ModelProfile& profile, double level) {
  bool changed = false;
  for (auto& table : profile.block_tables) {
    if (table.distributions.size() != table.blocks.size()) continue;
    for (std::size_t k = 0; k < table.blocks.size(); ++k) {
      const auto& batches = table.blocks[k].batches();
      const auto& row = table.distributions[k];
      if (row.size() != batches.size()) continue;
      std::vector<Duration> at_level;
      at_level.reserve(row.size());
      for (const auto& d : row)
        at_level.push_back(d.quantile(level));
      table.blocks[k] = BatchCurve(batches, std::move(at_level));
      changed = true;
    }
  }
  return changed;
}

std::optional<Scenario> planned_at_quantile(const Scenario& scenario, double level) {
  const auto keeps = [](const ModelProfile& p) {
    for (const auto& t : p.block_tables)
      if (!t.distributions.empty()) return true;
    return false;
  };
  bool any = false;
  for (const auto& p : scenario.profiles.models)
    any = any || keeps(p);
  if (!any) return std::nullopt;
  auto out = scenario;
  for (auto& p : out.profiles.models)
    plan_at_quantile(p, level);
  return out;
}

}  // namespace servescope
