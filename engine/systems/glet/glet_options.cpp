#include "engine/systems/glet/glet_options.h"

#include "model/gpu/gpu_catalog.h"

namespace servescope::engine {

OptionSchema<SimulationSpec> glet_simulation_options() {
  OptionSchema<GletRunOptions> o;
  using G = GletRunOptions;
  // Aliases ("t4") name the catalog's type, as everywhere else.
  auto& gpu = o.add(
      option_spec("gpu", "GPU type to split", "glet-serving: the GPU type to split on a mixed cluster",
                  OptionType::Text),
      [](const G& g) -> OptionValue { return g.gpu; },
      [](G& g, const OptionValue& v) {
        const auto& id = std::get<std::string>(v);
        g.gpu = id.empty() ? std::string() : GpuCatalog::builtin().canonical_id(id);
      });
  gpu.hint = OptionHint::ClusterGpuType;
  gpu.show_default = false;
  o.duration("period", "Reschedule period", "glet-serving: seconds between reschedules", 0.1, 86400, 1,
             [](G& g) -> Duration& { return g.serving.period; })
      .unit = " s";
  o.duration("reorganisation", "Reorganisation time",
             "glet-serving: seconds a new schedule takes to come up (the old one serves meanwhile)", 0, 86400, 1,
             [](G& g) -> Duration& { return g.serving.reorganisation; })
      .unit = " s";
  return o.lift<SimulationSpec>([](SimulationSpec& spec) -> G& { return spec.family_options.edit<G>(); });
}

OptionSchema<ScenarioPlanRequest> glet_planner_options() {
  OptionSchema<ScenarioPlanRequest> o;
  using R = ScenarioPlanRequest;
  o.text("gpu", "GPU type to split", "gpu-let: the GPU type to split on a mixed cluster", [](R& r) -> std::string& {
     return r.glet_gpu;
   }).hint = OptionHint::ClusterGpuType;
  o.integer_list("sizes", "Partition sizes",
                 "gpu-let: partition sizes in percent, e.g. 50,100 for profiles with MPS halves only (default: "
                 "20,40,50,60,80,100)",
                 1, 100, [](R& r) -> std::vector<int>& { return r.glet_sizes; })
      .show_default = false;
  o.integer("gpu-limit", "GPU limit", "gpu-let: most GPUs to scale to (0: all of that type)", 0, 1 << 20,
            [](R& r) -> int& { return r.glet_gpu_limit; });
  o.integer("previous-gpus", "GPUs last period", "gpu-let: GPUs the last period used (scaling starts here)", 1, 1 << 20,
            [](R& r) -> int& { return r.glet_previous_gpus; });
  o.choice<FitOrder>("fit", "Best fit", "gpu-let best fit: smallest (paper) | unpartitioned (prototype)",
                     {{"smallest", FitOrder::SmallestFirst}, {"unpartitioned", FitOrder::UnpartitionedFirst}},
                     [](R& r) -> FitOrder& { return r.glet.fit; });
  o.choice<MergeRule>("merge", "Time sharing", "gpu-let time sharing: conservative (d + sum L <= SLO) | nexus",
                      {{"conservative", MergeRule::Conservative}, {"nexus", MergeRule::Nexus}},
                      [](R& r) -> MergeRule& { return r.glet.merge; });
  o.choice<KneeRule>("knee", "Knee rule", "gpu-let p_eff: marginal (gain per %) | efficiency (req/s per %)",
                     {{"marginal", KneeRule::MarginalGain}, {"efficiency", KneeRule::MaxEfficiency}},
                     [](R& r) -> KneeRule& { return r.glet_knee; });
  o.flag("headroom", "Plan with rate headroom",
         "gpu-let: plan for the prototype's headroom over each rate (x1.5 under 125 req/s, else x1.2), as when the "
         "plan will serve Poisson traffic",
         [](R& r) -> bool& { return r.glet_headroom; });
  o.real("safety", "Latency safety factor", "gpu-let: latency safety factor", 1, 3,
         [](R& r) -> double& { return r.glet_safety; });
  o.real("rate-slack", "Rate slack",
         "gpu-let: req/s a model may fall short and count as served (or the fraction below, if larger)", 0, 1e6,
         [](R& r) -> double& { return r.glet.rate_epsilon_rps; })
      .unit = " req/s";
  o.real("shortfall-tolerance", "Shortfall tolerance",
         "gpu-let: fraction of its rate a model may end short once interference slowed its glets (the prototype's "
         "0.15)",
         0, 0.5, [](R& r) -> double& { return r.glet.shortfall_tolerance; });
  o.real("rate-slack-fraction", "Rate slack fraction", "gpu-let: fraction of its rate a model may fall short", 0, 0.5,
         [](R& r) -> double& { return r.glet.rate_epsilon_fraction; });
  return o;
}

}  // namespace servescope::engine
