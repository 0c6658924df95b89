#include "engine/ppipe/scenario_planning.h"

#include <algorithm>

#include "model/core/error.h"

namespace servescope::engine {

PlanningInput planning_input(const Scenario& scenario, const std::vector<std::string>& workloads,
                             bool expand_applications) {
  PlanningInput in;
  in.gpus = planner_gpu_types(scenario.cluster);
  if (in.gpus.empty()) throw QueryError("the scenario's cluster has no GPUs");
  for (auto& g : in.gpus)
    g.contention = scenario.profiles.contention_on(g.gpu);
  double total = 0;
  // One model's rate (added) and SLO (the tightest asked for).
  const auto add = [&](const std::string& model, Duration slo, double rate) {
    const auto* profile = &scenario.profiles.get(model);
    auto it = std::ranges::find(in.models, profile, &PlannerModel::profile);
    if (it == in.models.end()) {
      in.models.push_back({profile, slo, 0});
      in.rate_rps.push_back(0);
      it = in.models.end() - 1;
    }
    it->slo = std::min(it->slo, slo);
    in.rate_rps[static_cast<std::size_t>(it - in.models.begin())] += rate;
    total += rate;
  };
  for (const auto* w : scenario.select_workloads(workloads)) {
    const auto shares = w->shares();
    for (std::size_t i = 0; i < w->targets.size(); ++i) {
      const auto& t = w->targets[i];
      const auto slo = scenario.slo_of(t);
      if (!slo) throw QueryError("target '" + t.name + "' of workload '" + w->name + "' has no SLO");
      const double rate = w->rate_rps * shares[i];
      if (t.kind == TargetKind::Model) {
        add(t.name, *slo, rate);
        continue;
      }
      if (!expand_applications)
        throw QueryError("workload '" + w->name + "' targets application '" + t.name +
                         "'; PPipe plans models, not application DAGs (gpu-let and the cost planners do)");
      const auto* app = scenario.find_application(t.name);
      if (!app) throw QueryError("workload '" + w->name + "' targets no application named '" + t.name + "'");
      for (const auto& [model, share] : module_model_slos(*app, scenario.profiles, in.gpus.front().gpu, *slo))
        add(model, share, rate);
    }
  }
  for (std::size_t m = 0; m < in.models.size(); ++m)
    in.models[m].weight = total > 0 ? in.rate_rps[m] / total : 1.0 / static_cast<double>(in.models.size());
  for (auto& m : in.models)
    if (!(m.weight > 0)) throw QueryError(m.profile->name + ": its workload share is zero, so it cannot be weighed");
  return in;
}

std::vector<std::string> pipeline_planners() {
  return {"ppipe", "np", "dart-r"};
}

PipelinePlan plan_pipelines(const std::string& system, const PlanningInput& input, const PpipeOptions& options) {
  if (system == "ppipe") return plan_ppipe(input.models, input.gpus, options);
  if (system == "np") return plan_np(input.models, input.gpus, options);
  if (system == "dart-r") return plan_dart_r(input.models, input.gpus, options);
  throw QueryError("unknown planner '" + system + "' (known: ppipe, np, dart-r)");
}

}  // namespace servescope::engine
