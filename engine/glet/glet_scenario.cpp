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
    // Unnamed: a type every model is profiled on, preferring the one with the most partition
    // sizes profiled for all of them (gpu-let splits GPUs), then the one with the most GPUs; a
    // cluster of one type has no choice to make.
    const auto shares_profiled = [&](const PlannerGpuType& g) {
      int shares = 0;
      for (int percent = 1; percent <= 100; ++percent)
        shares +=
            std::ranges::all_of(planning.models,
                                [&](const auto& m) {
                                  return m.profile && m.profile->max_batch(g.gpu, GpuShare::percent(percent)) >= 1;
                                })
                ? 1
                : 0;
      return shares;
    };
    int best = 0;
    for (const auto& g : planning.gpus) {
      const int shares = planning.gpus.size() == 1 ? 1 : shares_profiled(g);
      if (shares > 0 && (!type || shares > best || (shares == best && g.count > type->count))) {
        type = &g;
        best = shares;
      }
    }
    if (!type) {
      std::string types;
      for (const auto& g : planning.gpus)
        types += (types.empty() ? "" : ", ") + g.gpu;
      throw QueryError("no GPU type of the cluster (" + types +
                       ") has a profile of every model; profile them on one, or say which one gpu-let splits (--gpu)");
    }
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
