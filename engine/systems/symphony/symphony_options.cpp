#include "engine/systems/symphony/symphony_options.h"

namespace servescope::engine {

OptionSchema<SimulationSpec> symphony_simulation_options() {
  OptionSchema<SymphonyRunOptions> o;
  using S = SymphonyRunOptions;
  o.choice<std::optional<BatchRule>>("batch-policy", "Batch policy",
                                     "greedy|window-drop|window-fcfs (default: the system's)",
                                     {{"default", std::nullopt},
                                      {"greedy", BatchRule::Greedy},
                                      {"window-drop", BatchRule::WindowDrop},
                                      {"window-fcfs", BatchRule::WindowFcfs}},
                                     [](S& s) -> std::optional<BatchRule>& { return s.batch_rule; })
      .show_default = false;
  o.choice<GpuPick>("gpu-pick", "GPU pick", "lowest-id|earliest-free",
                    {{"lowest-id", GpuPick::LowestId}, {"earliest-free", GpuPick::EarliestFree}},
                    [](S& s) -> GpuPick& { return s.deferred.gpu_pick; });
  o.real("timeout-fraction", "Timeout (of the SLO)", "Timeout system: k as a fraction of the SLO", 0, 10,
         [](S& s) -> double& { return s.timeout_fraction_of_slo; });
  o.integer("subclusters", "Sub-clusters",
            "Split GPUs and models into this many sub-clusters, each with its own scheduler (Symphony §4.4)", 1, 4096,
            [](S& s) -> int& { return s.subclusters; });
  o.integer("frontends", "Nexus frontends", "Nexus: frontends routing on their own", 1, 1024,
            [](S& s) -> int& { return s.nexus.frontends; });
  o.duration("epoch", "Nexus epoch", "Nexus: seconds between re-plans", 0.01, 1e6, 1, [](S& s) -> Duration& {
     return s.nexus.epoch;
   }).unit = " s";
  o.duration("ctrl-delay-us", "Control delay",
             "Symphony's network model (Appendix D): from dispatch until a batch can start, in µs", 0, 1e6, 1e-6,
             [](S& s) -> Duration& { return s.deferred.d_ctrl; })
      .unit = " µs";
  o.duration("data-delay-us", "Data delay per request", "... and per request of the batch (its inputs), in µs", 0, 1e6,
             1e-6, [](S& s) -> Duration& { return s.deferred.d_data; })
      .unit = " µs";
  o.duration("response-delay-us", "Response delay",
             "... and for a result to reach its client, in µs (also PPipe's reservation data plane)", 0, 1e6, 1e-6,
             [](S& s) -> Duration& { return s.deferred.d_resp; })
      .unit = " µs";
  return o.lift<SimulationSpec>([](SimulationSpec& spec) -> S& { return spec.family_options.edit<S>(); });
}

}  // namespace servescope::engine
