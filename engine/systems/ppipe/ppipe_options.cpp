#include "engine/systems/ppipe/ppipe_options.h"

#include "model/core/error.h"

namespace servescope::engine {

OptionSchema<SimulationSpec> pipeline_simulation_options() {
  OptionSchema<PipelineRunOptions> o;
  using P = PipelineRunOptions;
  o.choice<ReservationMode>("reservations", "Reservation tables",
                            "Reservation tables: gap-filling|horizon (the artifact's busy-until rule)",
                            {{"gap-filling", ReservationMode::GapFilling}, {"horizon", ReservationMode::Horizon}},
                            [](P& p) -> ReservationMode& { return p.reservation.mode; });
  o.choice<WakeRule>("wake", "Wake rule", "When a short queue stops waiting: paper|artifact",
                     {{"paper", WakeRule::LatestFeasible}, {"artifact", WakeRule::NextBatchInfeasible}},
                     [](P& p) -> WakeRule& { return p.reservation.wake; });
  // Both pipeline data planes take the artifact's first look; one option sets it for both.
  auto& first_look = o.add(
      option_spec("first-look", "First look",
                  "Drop a new head at once unless a batch of this fraction of the planned one fits (0: off; the "
                  "artifact's 0.95 by default, which leaves a planned batch of one alone)",
                  OptionType::Real),
      [](const P& p) -> OptionValue { return p.reservation.first_look_min_fraction; },
      [](P& p, const OptionValue& v) {
        p.reservation.first_look_min_fraction = std::get<double>(v);
        p.reactive.first_look_min_fraction = std::get<double>(v);
      });
  first_look.min = 0;
  first_look.max = 1;
  o.negated_flag("uplink-blind", "Uplink-blind stage pick",
                 "Reservation data plane: pick a non-final stage's vGPU by its inference end alone, as the paper's "
                 "Algorithm 2 (default: by the later of that and its uplink becoming free, the artifact's rule, so a "
                 "full uplink is avoided)",
                 [](P& p) -> bool& { return p.reservation.probe.avoid_jammed_uplink; });
  o.choice<NetworkLayout>(
      "network", "Network layout",
      "Which NICs a transfer holds: per-server (one uplink and one downlink per server, shared by its vGPUs) | "
      "artifact (the PPipe artifact's simulator: a link per server's worth of a partition's vGPUs within each "
      "pipeline, and one per final-stage vGPU)",
      {{"per-server", NetworkLayout::PerServer}, {"artifact", NetworkLayout::Artifact}},
      [](P& p) -> NetworkLayout& { return p.network; });
  o.choice<GpuPlacementRule>(
      "placement", "GPU placement",
      "Where a plan's partitions take their GPUs: nic-load (each new GPU on the server whose links its feature "
      "maps load least, so partitions spread) | cluster-order (servers filled in turn, as the PPipe artifact does)",
      {{"nic-load", GpuPlacementRule::NicLoad}, {"cluster-order", GpuPlacementRule::ClusterOrder}},
      [](P& p) -> GpuPlacementRule& { return p.placement; });
  o.flag("local-handoff-free", "Local hand-offs free",
         "Hand-offs between vGPUs of one server skip the NIC (default: charged, as in PPipe's artifact)",
         [](P& p) -> bool& { return p.reservation.probe.local_handoff_free; });
  o.duration("response-delay-us", "Response delay",
             "... and for a result to reach its client, in µs (also PPipe's reservation data plane)", 0, 1e6, 1e-6,
             [](P& p) -> Duration& { return p.reservation.response_allowance; })
      .unit = " µs";
  o.negated_flag("no-feedback", "No feedback",
                 "Reservation data plane: keep the planned reservations when batches finish early or late",
                 [](P& p) -> bool& { return p.reservation.feedback; });
  o.negated_flag("no-pace", "No pace learning",
                 "Reservation data plane: reserve every batch at its profiled time, however much longer a vGPU's "
                 "batches really take",
                 [](P& p) -> bool& { return p.reservation.learn_pace; });
  o.real("behind-min-batch", "Smallest batch while behind",
         "Reservation data plane: while a full planned batch is queued, drop the head rather than "
         "serve it in a batch below this fraction of the planned one (0: the paper's rule)",
         0, 1, [](P& p) -> double& { return p.reservation.behind_min_fraction; });
  return o.lift<SimulationSpec>([](SimulationSpec& spec) -> P& { return spec.family_options.edit<P>(); });
}

const std::vector<std::pair<std::string, std::string>>& artifact_simulator_options() {
  static const std::vector<std::pair<std::string, std::string>> options = {
      {"reservations", "horizon"}, {"wake", "artifact"}, {"first-look", "0.95"},        {"network", "artifact"},
      {"behind-min-batch", "0"},   {"no-feedback", ""},  {"placement", "cluster-order"}};
  return options;
}

void apply_pipeline_options(SimulationSpec& spec, const std::vector<std::pair<std::string, std::string>>& options) {
  const auto schema = pipeline_simulation_options();
  for (const auto& [name, text] : options) {
    const auto* o = schema.find(name);
    if (!o) throw QueryError("the pipeline data planes have no option --" + name);
    o->write(spec, text.empty() ? OptionValue(true) : parse_option_value(o->spec, text));
  }
}

OptionSchema<ScenarioPlanRequest> pipeline_planner_options() {
  OptionSchema<ScenarioPlanRequest> o;
  using R = ScenarioPlanRequest;
  o.integer("partitions", "Partitions per pipeline", "Partitions per pipeline, 1-3", 1, 3,
            [](R& r) -> int& { return r.ppipe.max_partitions; });
  o.real("margin", "SLO margin", "Fraction of the SLO held back while planning", 0, 0.95,
         [](R& r) -> double& { return r.ppipe.slo_margin; });
  o.choice<PpipeObjective>("objective", "Objective",
                           "What several models' plan maximises: lex-max-min (the paper's max-min, then each "
                           "model raised in turn so no GPU that could serve is left idle) | max-min (the paper's)",
                           {{"lex-max-min", PpipeObjective::LexMaxMin}, {"max-min", PpipeObjective::MaxMin}},
                           [](R& r) -> PpipeObjective& { return r.ppipe.objective; });
  o.choice<PpipeSolver>("solver", "Solver",
                        "auto (the exact frontier search up to 3 GPU types, else the MILP) | frontier | milp",
                        {{"auto", PpipeSolver::Auto}, {"frontier", PpipeSolver::Frontier}, {"milp", PpipeSolver::Milp}},
                        [](R& r) -> PpipeSolver& { return r.ppipe.solver; });
  o.real("time-limit", "Solver time limit", "Seconds the MILP solver may take, every stage included", 0.1, 86400,
         [](R& r) -> double& { return r.ppipe.time_limit_s; })
      .unit = " s";
  o.real("mip-gap", "MIP gap", "Relative gap at which the solver stops", 0, 1,
         [](R& r) -> double& { return r.ppipe.mip_gap; });
  o.integer_list("vgpus", "vGPU divisors", "Allowed vGPU divisors, e.g. 1,2,4 (default: every profiled one)", 1, 64,
                 [](R& r) -> std::vector<int>& { return r.ppipe.vgpu_divisors; })
      .show_default = false;
  o.integer_list("batches", "Batch sizes", "Allowed batch sizes, e.g. 1,2,4,8 (default: every profiled one)", 1,
                 1'000'000, [](R& r) -> std::vector<int>& { return r.ppipe.batch_sizes; })
      .show_default = false;
  o.flag("several-configs", "Several configurations per sequence",
         "Allow several pools with the same GPU-type sequence (a strict relaxation)",
         [](R& r) -> bool& { return r.ppipe.several_configs_per_sequence; });
  o.negated_flag("no-nic-cap", "No NIC cap", "Do not cap a vGPU's throughput by its share of the node NIC",
                 [](R& r) -> bool& { return r.ppipe.nic_cap; });
  o.negated_flag("no-batch-forming", "No batch forming",
                 "Leave out the estimate of the time to gather a batch from the latency budget",
                 [](R& r) -> bool& { return r.ppipe.batch_forming; });
  return o;
}

}  // namespace servescope::engine
