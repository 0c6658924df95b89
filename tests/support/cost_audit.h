// The cost planners' audit (docs/reproduction/cost.md "The audit"): random workloads with what real
// profiles have (RandomWorkloadOptions::audit()), each at its generated SLO and at half of it,
// planned by every preset and by the exact brute force in the preset's space, every plan re-checked
// by the independent checker. Shared by the audit test (a few seeds) and bench/audit_cost (the
// report in docs/reproduction/cost.md).
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace servescope::test {

struct PresetAudit {
  int plans = 0;
  int unplannable = 0;      // the preset's space leaves a module nothing (a refusal naming it)
  int refused = 0;          // no plan found
  int wrongly_refused = 0;  // refused where the brute force plans in the preset's space
  int compared = 0, equal = 0;
  double excess_sum = 0, excess_max = 0;  // cost / optimum − 1
  std::uint64_t excess_seed = 0;
  double time_sum_ms = 0, time_max_ms = 0;  // wall clock: for the report, never asserted
};

struct CostAudit {
  int workloads = 0;
  int incomplete = 0;     // optimum searches that ran out of their node budget (skipped)
  int plans = 0;          // over all presets
  int dropped = 0;        // DNN modules without machines in a plan: must be 0
  int rejected = 0;       // plans the independent checker rejects: must be 0
  int below_optimum = 0;  // plans cheaper than the brute force in their space: must be 0
  std::map<std::string, PresetAudit> presets;
  std::vector<std::string> order;  // presets in the order planned

  int wrongly_refused() const;
  bool clean() const { return dropped == 0 && rejected == 0 && below_optimum == 0 && wrongly_refused() == 0; }
};

// Every system and every ablation on both bases, in that order.
std::vector<std::string> all_cost_presets();

CostAudit audit_cost_planners(std::uint64_t first_seed, std::uint64_t last_seed,
                              const std::vector<std::string>& presets = all_cost_presets());

}  // namespace servescope::test
