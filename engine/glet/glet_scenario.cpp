#include "engine/glet/glet_scenario.h"

#include <algorithm>

#include "engine/ppipe/scenario_planning.h"
#include "model/core/error.h"

namespace servescope::engine {

GletInput glet_input(const Scenario& scenario, const std::vector<std::string>& workloads, const std::string& gpu) {
  const auto planning = planning_input(scenario, workloads, true);
  GletInput in;
  const PlannerGpuType* type = nullptr;
  if (gpu.empty()) {
    if (planning.gpus.size() != 1) {
      std::string types;
      for (const auto& g : planning.gpus)
        types += (types.empty() ? "" : ", ") + g.gpu;
      throw QueryError("the cluster mixes GPU types (" + types + "); say which one gpu-let splits (--gpu)");
    }
    type = &planning.gpus[0];
  } else {
    const auto it = std::ranges::find(planning.gpus, gpu, &PlannerGpuType::gpu);
    if (it == planning.gpus.end()) throw QueryError("the cluster has no " + gpu + " GPUs");
    type = &*it;
  }
  in.latency.gpu = type->gpu;
  in.gpu_limit = type->count;
  const auto& profiles = scenario.profiles;
  for (const auto& i : profiles.interference)
    if (i.gpu == type->gpu) in.latency.interference = i;
  for (std::size_t m = 0; m < planning.models.size(); ++m) {
    const auto* p = planning.models[m].profile;
    const UtilisationProfile* util = nullptr;
    for (const auto& u : profiles.utilisation)
      if (u.model == p->name && u.gpu == type->gpu) util = &u;
    in.models.push_back({p, util, planning.rate_rps[m], planning.models[m].slo, {}});
  }
  return in;
}

}  // namespace servescope::engine
