// The solve at the heart of the pooled-pipeline planners (seed 000 Appendix A; digest §2.4–§2.6;
// docs/reproduction/ppipe.md): enumerate every pipeline configuration that meets each model's
// planning SLO, drop dominated ones, choose among them — with the exact frontier search or the
// MILP, for max-min or lexicographic max-min — and read the plan back. PPipe, NP and DART-r
// differ only in the options and the cluster they hand it; this header is for those planners,
// not for callers.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "engine/ppipe/ppipe_planner.h"

namespace servescope::engine {

// Throws QueryError on empty inputs, options out of range, a model without a profile, SLO or
// positive weight.
void check_planner_inputs(const std::vector<PlannerModel>& models, const std::vector<PlannerGpuType>& gpus,
                          const PpipeOptions& options);

// lambda[m]: the arrival rate behind model m's batch-forming estimate; empty leaves it out.
PipelinePlan solve_pipelines(const std::vector<PlannerModel>& models, const std::vector<PlannerGpuType>& gpus,
                             const PpipeOptions& options, const std::string& system,
                             const std::vector<std::optional<double>>& lambda);

}  // namespace servescope::engine
