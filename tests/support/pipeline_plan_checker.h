// An independent check of a pooled-pipeline plan (PPipe, NP, DART-r): everything is recomputed
// from the profiles and the cluster, not taken from the planner. Returns what is wrong, one line
// per problem; empty when the plan is feasible.
#pragma once

#include <algorithm>
#include <string>
#include <vector>

#include "engine/ppipe/pipeline_plan.h"
#include "engine/ppipe/planner_input.h"

namespace servescope::test {

struct PlanCheckInput {
  std::vector<engine::PlannerModel> models;
  std::vector<engine::PlannerGpuType> gpus;
  double slo_margin = 0.4;
  bool nic_cap = true;
};

std::vector<std::string> check_pipeline_plan(const engine::PipelinePlan& plan, const PlanCheckInput& input);

// Each model's throughput over its weight, ascending: what lexicographic max-min compares.
inline std::vector<double> sorted_normalised_rates(const engine::PipelinePlan& plan) {
  std::vector<double> out;
  for (const auto& m : plan.models)
    out.push_back(m.throughput_rps / m.weight);
  std::ranges::sort(out);
  return out;
}

}  // namespace servescope::test
