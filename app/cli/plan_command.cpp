// `servescope-cli plan`: runs a planner on a scenario through the engine's one dispatch
// (plan_scenario, which the GUI uses too) and writes the plan as JSON; prints the pipelines, the
// glets or the cost plan's modules, and how the solve or the checks went.
#include <iomanip>
#include <iostream>
#include <optional>
#include <type_traits>
#include <variant>

#include "app/cli/cli_context.h"
#include "engine/systems/scenario_planner.h"
#include "model/io/document.h"

namespace servescope::cli {
namespace {

void print_plan(std::ostream& out, const engine::PipelinePlan& plan) {
  out << std::fixed << std::setprecision(1);
  out << plan.system << ": " << plan.total_throughput_rps() << " req/s in all; solve " << plan.solve.status << " in "
      << std::setprecision(2) << plan.solve.seconds << " s over " << plan.solve.columns << " candidate pipelines";
  if (!plan.solve.proven_optimal && plan.solve.status == "feasible")
    out << " (gap " << std::setprecision(2) << 100 * plan.solve.gap << " %)";
  out << "\n" << std::setprecision(1);
  for (const auto& m : plan.models)
    out << "  " << m.name << ": " << m.throughput_rps << " req/s, SLO " << m.slo.to_ms() << " ms (planned against "
        << m.planning_slo.to_ms() << " ms), weight " << std::setprecision(3) << m.weight << std::setprecision(1)
        << "\n";
  for (const auto& p : plan.pipelines) {
    out << "  pipeline " << p.model << ", batch " << p.batch << ": " << p.assigned_rps << " req/s (capacity "
        << p.capacity_rps << "), latency " << std::setprecision(2) << p.latency.to_ms() << " ms";
    if (p.batch_forming > Duration()) out << " + " << p.batch_forming.to_ms() << " ms to form a batch";
    out << std::setprecision(1) << "\n";
    for (const auto& d : p.partitions)
      out << "    blocks [" << d.blocks.begin << ", " << d.blocks.end << ") on " << d.vgpus << " x " << d.gpu
          << (d.vgpu_divisor > 1 ? " 1/" + std::to_string(d.vgpu_divisor) : std::string()) << " (" << d.gpus
          << " GPUs): " << std::setprecision(2) << d.latency.to_ms() << " ms"
          << (d.transfer > Duration() ? ", then " + std::to_string(d.transfer.to_ms()).substr(0, 5) + " ms transfer"
                                      : std::string())
          << std::setprecision(1) << ", " << d.capacity_rps << " req/s\n";
  }
  for (const auto& n : plan.notes)
    out << "  note: " << n << "\n";
  out << std::defaultfloat;
}

void print_glet_plan(std::ostream& out, const engine::GletPlan& plan) {
  out << std::fixed << std::setprecision(1);
  out << plan.system << ": " << (plan.feasible ? "fits" : "does not fit") << " on " << plan.layout.gpus_used() << " of "
      << plan.gpus << " " << plan.gpu << " GPU(s), glets " << plan.layout.total_size_percent() << " % in all";
  if (!plan.message.empty()) out << "; " << plan.message;
  out << "\n";
  for (const auto& m : plan.models)
    out << "  " << m.name << ": " << m.assigned_rps << " of " << m.rate_rps << " req/s, SLO " << m.slo.to_ms()
        << " ms\n";
  for (std::size_t g = 0; g < plan.layout.gpus.size(); ++g) {
    const auto& gpu = plan.layout.gpus[g];
    if (!gpu.used()) continue;
    out << "  GPU " << g << ":\n";
    for (const auto& l : gpu.glets) {
      out << "    " << l.size_percent << " %: ";
      if (l.free()) {
        out << "free\n";
        continue;
      }
      out << engine::to_string(l.mode) << ", duty cycle " << std::setprecision(2) << l.duty_cycle.to_ms()
          << " ms, occupancy " << l.occupancy() << std::setprecision(1) << "\n";
      for (const auto& a : l.models)
        out << "      " << plan.models[static_cast<std::size_t>(a.model)].name << ": batch " << a.batch << ", "
            << a.rate_rps << " req/s, " << std::setprecision(2) << a.latency.to_ms() << " ms per batch (x"
            << std::setprecision(3) << a.interference << " interference)" << std::setprecision(1) << "\n";
    }
  }
  out << std::defaultfloat;
}

void print_cost_plan(std::ostream& out, const engine::CostPlan& plan) {
  if (!plan.feasible) {
    out << plan.system << ": no plan: " << plan.reason << "\n";
    return;
  }
  const bool headroom = plan.has_headroom();
  const auto at_rates = plan.latency_at_rates();
  out << plan.system << ": cost " << plan.cost << " on " << plan.machines() << " machine(s), end-to-end WCL "
      << plan.e2e_wcl.to_ms() << " ms of " << plan.problem.slo.to_ms() << " ms"
      << (headroom ? " at the planned rates (the workload's plus burst headroom)" : "") << "\n";
  if (headroom) {
    // The formula's guarantee holds at the rates the tiers were sized for; at the workload's own
    // rate the lower tiers collect more slowly (docs/formats.md "Cost plans"). Say which number the
    // SLO rests on.
    const Duration real = plan.e2e_wcl_at_rates();
    out << "  at the workload's rates the papers' formula gives " << real.to_ms() << " ms end to end"
        << (real > plan.problem.slo ? ", above the SLO" : "")
        << ": the latency guarantee for bursty arrivals is the simulator check, not the formula\n";
  }
  for (std::size_t m = 0; m < plan.modules.size(); ++m) {
    const auto& mod = plan.problem.modules[m];
    out << "  " << mod.id << ": ";
    if (mod.is_fixed()) {
      out << "CPU step " << mod.fixed_latency.to_ms() << " ms\n";
      continue;
    }
    const auto& mp = plan.modules[m];
    out << mod.rate_rps << " req/s";
    if (mp.headroom_rps > 0) out << " (planned for " << mod.rate_rps + mp.headroom_rps << ")";
    out << ", budget " << plan.budgets[m].to_ms() << " ms, WCL " << plan.latency[m].to_ms() << " ms";
    if (mp.headroom_rps > 0) out << " (" << at_rates[m].to_ms() << " ms at " << mod.rate_rps << " req/s)";
    out << ", cost " << mp.cost << ": " << engine::describe(mp, mod) << "\n";
  }
}

std::vector<int> parse_glet_sizes(const std::string& text) {
  auto sizes = parse_int_list(text, "--sizes");
  for (const int p : sizes)
    if (p > 100) throw CLI::ValidationError("--sizes", std::to_string(p) + " is more than 100 %");
  return sizes;
}

struct PlanArgs {
  std::string scenario, system = "ppipe", out, vgpus, batches;
  std::vector<std::string> workloads;
  engine::PpipeOptions options;
  bool no_nic_cap = false, no_batch_forming = false;
  // gpu-let
  std::string gpu, fit = "smallest", merge = "conservative", knee = "marginal", sizes;
  int gpu_limit = 0, previous_gpus = 1;
  bool headroom = false;
  engine::GletPlannerOptions glet;
  double safety = 1.1;
  // cost planners
  std::string app;
  std::vector<std::string> prices;
  double burst_z = 0;
  double simulate_s = 0;
  std::uint64_t seed = 1;
  bool no_verify = false;
};

// What to plan and with which planner.
void add_target_options(CLI::App* cmd, PlanArgs& args) {
  std::vector<std::string> planners;
  for (const auto& [family, system] : engine::scenario_planners())
    planners.push_back(system);
  std::string systems;
  for (const auto& s : planners)
    systems += (systems.empty() ? "" : "|") + s;
  cmd->add_option("-s,--scenario", args.scenario, "Scenario or project file (or builtin:NAME)")->required();
  cmd->add_option("--system", args.system,
                  "Planner: " + systems + ", or a cost-planner ablation such as harpagon-nd or piccolo-2d")
      ->check(CLI::Validator(
          [](std::string& s) -> std::string {
            if (engine::is_planner(s)) return {};
            return "unknown planner '" + s + "'";
          },
          "PLANNER"))
      ->capture_default_str();
}

// The cost planners' application, prices, burst headroom and simulator check.
void add_cost_options(CLI::App* cmd, PlanArgs& args) {
  cmd->add_option("--app", args.app, "Cost planners: the application to plan (default: the one targeted)");
  cmd->add_option("--price", args.prices, "Cost planners: a GPU type's price, TYPE=VALUE (repeatable)");
  cmd->add_option("--burst-z", args.burst_z,
                  "Cost planners: plan each module for T + z*sqrt(T/budget) to absorb Poisson bursts (0: smooth "
                  "streams, as the papers)")
      ->check(CLI::Range(0.0, 10.0));
  cmd->add_option("--simulate", args.simulate_s,
                  "Cost planners: then run the plan in the simulator for this many seconds at its rates")
      ->check(CLI::Range(0.0, 86400.0));
  cmd->add_option("--seed", args.seed,
                  "Cost planners: the seed of the checks in the simulator and of the --simulate run")
      ->capture_default_str();
  cmd->add_flag("--no-verify", args.no_verify,
                "Cost planners: the papers' plan for smooth streams, not checked in the simulator against the "
                "workload's arrival process");
}

// Which workloads, and where the plan goes.
void add_output_options(CLI::App* cmd, PlanArgs& args) {
  cmd->add_option("-w,--workload", args.workloads, "Workload whose models to plan (repeatable; default: all)");
  cmd->add_option("-o,--out", args.out, "Write the plan as JSON (atomically; - is standard output)");
}

// The pooled-pipeline planners' MILP and its space (PPipe, NP, DART-r).
void add_pipeline_options(CLI::App* cmd, PlanArgs& args) {
  cmd->add_option("--partitions", args.options.max_partitions, "Partitions per pipeline, 1-3")
      ->check(CLI::Range(1, 3))
      ->capture_default_str();
  cmd->add_option("--margin", args.options.slo_margin, "Fraction of the SLO held back while planning")
      ->check(CLI::Range(0.0, 0.95))
      ->capture_default_str();
  cmd->add_option("--time-limit", args.options.time_limit_s, "Seconds the MILP solver may take")
      ->check(CLI::Range(0.1, 86400.0))
      ->capture_default_str();
  cmd->add_option("--mip-gap", args.options.mip_gap, "Relative gap at which the solver stops")
      ->check(CLI::Range(0.0, 1.0))
      ->capture_default_str();
  cmd->add_option("--vgpus", args.vgpus, "Allowed vGPU divisors, e.g. 1,2,4 (default: every profiled one)");
  cmd->add_option("--batches", args.batches,
                  "Allowed batch sizes, e.g. 1,2,4,8 (default: every profiled one for the pipeline planners; "
                  "for the cost planners every profiled one and 1, 2, 4, …, 64 within each profile's range, "
                  "interpolated, each MPS share 1/s as concurrency s up to 4; Harpagon, Nexus, InferLine and "
                  "Clipper plan whole GPUs, concurrency 1, only)");
  cmd->add_flag("--several-configs", args.options.several_configs_per_sequence,
                "Allow several pools with the same GPU-type sequence (a strict relaxation)");
  cmd->add_flag("--no-nic-cap", args.no_nic_cap, "Do not cap a vGPU's throughput by its share of the node NIC");
  cmd->add_flag("--no-batch-forming", args.no_batch_forming,
                "Leave out the estimate of the time to gather a batch from the latency budget");
}

// gpu-let's splits, best fit, time sharing and slack.
void add_glet_options(CLI::App* cmd, PlanArgs& args) {
  cmd->add_option("--gpu", args.gpu, "gpu-let: the GPU type to split on a mixed cluster");
  cmd->add_option("--sizes", args.sizes,
                  "gpu-let: partition sizes in percent, e.g. 50,100 for profiles with MPS halves only (default: "
                  "20,40,50,60,80,100)");
  cmd->add_option("--gpu-limit", args.gpu_limit, "gpu-let: most GPUs to scale to (default: all of that type)")
      ->check(CLI::Range(1, 1 << 20));
  cmd->add_option("--previous-gpus", args.previous_gpus, "gpu-let: GPUs the last period used (scaling starts here)")
      ->check(CLI::Range(1, 1 << 20))
      ->capture_default_str();
  cmd->add_option("--fit", args.fit, "gpu-let best fit: smallest (paper) | unpartitioned (prototype)")
      ->check(CLI::IsMember({"smallest", "unpartitioned"}))
      ->capture_default_str();
  cmd->add_option("--merge", args.merge, "gpu-let time sharing: conservative (d + sum L <= SLO) | nexus")
      ->check(CLI::IsMember({"conservative", "nexus"}))
      ->capture_default_str();
  cmd->add_option("--knee", args.knee, "gpu-let p_eff: marginal (gain per %) | efficiency (req/s per %)")
      ->check(CLI::IsMember({"marginal", "efficiency"}))
      ->capture_default_str();
  cmd->add_flag("--headroom", args.headroom,
                "gpu-let: plan for the prototype's headroom over each rate (x1.5 under 125 req/s, else x1.2), as "
                "when the plan will serve Poisson traffic");
  cmd->add_option("--safety", args.safety, "gpu-let: latency safety factor")
      ->check(CLI::Range(1.0, 3.0))
      ->capture_default_str();
  cmd->add_option("--rate-slack", args.glet.rate_epsilon_rps,
                  "gpu-let: req/s a model may fall short and count as served (or the fraction below, if larger)")
      ->check(CLI::Range(0.0, 1e6))
      ->capture_default_str();
  cmd->add_option("--shortfall-tolerance", args.glet.shortfall_tolerance,
                  "gpu-let: fraction of its rate a model may end short once interference slowed its glets "
                  "(the prototype's 0.15)")
      ->check(CLI::Range(0.0, 0.5))
      ->capture_default_str();
  cmd->add_option("--rate-slack-fraction", args.glet.rate_epsilon_fraction,
                  "gpu-let: fraction of its rate a model may fall short")
      ->check(CLI::Range(0.0, 0.5))
      ->capture_default_str();
}

// The cost planners' part of the request; prices are checked against the scenario's catalog.
void add_cost_request(const PlanArgs& args, const Project& project, engine::ScenarioPlanRequest& request) {
  auto& co = request.cost.scenario;
  co.application = args.app;
  if (!args.gpu.empty()) co.gpus = {args.gpu};
  for (const auto& p : args.prices) {
    const auto eq = p.find('=');
    double value = 0;
    std::size_t used = 0;
    try {
      if (eq != std::string::npos) value = std::stod(p.substr(eq + 1), &used);
    } catch (const std::exception&) {
      used = 0;
    }
    if (eq == std::string::npos || used == 0 || used != p.size() - eq - 1 || !(value > 0))
      throw CLI::ValidationError("--price", "expected TYPE=VALUE with a positive price, got '" + p + "'");
    // A price for a type the scenario does not know would be ignored without a word.
    const auto catalog = project.scenario.catalog();
    const auto* type = catalog.find(p.substr(0, eq));
    if (!type)
      throw CLI::ValidationError(
          "--price", "no GPU type '" + p.substr(0, eq) + "' in the scenario's catalog (" + catalog.known_ids() + ")");
    co.prices[type->id] = value;
  }
  if (!args.batches.empty()) co.batches = request.ppipe.batch_sizes;
  request.cost.verify = !args.no_verify;
  request.cost.burst_z = args.burst_z;
  request.cost.simulate_s = args.simulate_s;
  request.cost.seed = args.seed;
}

// gpu-let's part of the request.
void add_glet_request(const PlanArgs& args, engine::ScenarioPlanRequest& request) {
  request.glet_gpu = args.gpu;
  request.glet_safety = args.safety;
  if (!args.sizes.empty()) request.glet_sizes = parse_glet_sizes(args.sizes);
  request.glet_knee = args.knee == "efficiency" ? engine::KneeRule::MaxEfficiency : engine::KneeRule::MarginalGain;
  request.glet = args.glet;
  request.glet.fit =
      args.fit == "unpartitioned" ? engine::FitOrder::UnpartitionedFirst : engine::FitOrder::SmallestFirst;
  request.glet.merge = args.merge == "nexus" ? engine::MergeRule::Nexus : engine::MergeRule::Conservative;
  request.glet_previous_gpus = args.previous_gpus;
  request.glet_gpu_limit = args.gpu_limit;
}

// Plans, writes the plan and prints it; the exit status says whether a plan came out.
int run_plan(const GlobalOptions& global, const PlanArgs& args) {
  check_outputs({args.out});
  engine::ScenarioPlanRequest request;
  request.system = args.system;
  request.workloads = args.workloads;
  auto& options = request.ppipe;
  options = args.options;
  if (!args.vgpus.empty()) options.vgpu_divisors = parse_int_list(args.vgpus, "--vgpus");
  if (!args.batches.empty()) options.batch_sizes = parse_int_list(args.batches, "--batches");
  options.nic_cap = !args.no_nic_cap;
  options.batch_forming = !args.no_batch_forming;
  auto doc = load_document(args.scenario);
  const auto project = project_from_document(std::move(doc), args.scenario);
  const auto family = engine::planner_family(args.system);
  if (family == engine::PlannerFamily::Cost) add_cost_request(args, project, request);
  if (family == engine::PlannerFamily::Glet) add_glet_request(args, request);
  if (!global.json)
    request.on_start = [&](const engine::PlanningStart& start) {
      std::cerr << "planning " << args.system;
      if (start.family == engine::PlannerFamily::Pipeline)
        std::cerr << " for " << start.models << " model(s) on " << start.gpus << " GPUs (solver limit "
                  << options.time_limit_s << " s)";
      else if (start.family == engine::PlannerFamily::Glet)
        std::cerr << " for " << start.models << " model(s) on up to " << start.gpus << " " << start.gpu << " GPUs";
      std::cerr << "...\n";
    };
  const auto result = engine::plan_scenario(project.scenario, request);
  if (!args.out.empty()) save_json_file(args.out, result.plan);
  if (global.json) print_json(result.plan);
  return std::visit(
      [&](const auto& planned) {
        using Planned = std::decay_t<decltype(planned)>;
        if constexpr (std::is_same_v<Planned, engine::PipelinePlan>) {
          if (!global.json) print_plan(report_stream(), planned);
          return planned.pipelines.empty() ? kExitFailure : kExitOk;
        } else if constexpr (std::is_same_v<Planned, engine::GletPlan>) {
          if (!global.json) print_glet_plan(report_stream(), planned);
          return planned.feasible ? kExitOk : kExitFailure;
        } else {
          if (!global.json) {
            print_cost_plan(report_stream(), planned.plan);
            report_stream() << planned.report;
          }
          return planned.plan.feasible ? kExitOk : kExitFailure;
        }
      },
      result.planned);
}

}  // namespace

void add_plan_command(CLI::App& app, const GlobalOptions& global, CommandBody& run) {
  auto* cmd = app.add_subcommand("plan",
                                 "Plan a scenario: pooled pipelines (PPipe, NP, DART-r), gpu-let partitions (glet "
                                 "and its baselines SBP, greedy best-fit, the exhaustive ideal), or cost-minimal "
                                 "module configurations for an application (Piccolo, Harpagon, Nexus, Scrooge, "
                                 "InferLine, Clipper, brute force)");
  auto args = std::make_shared<PlanArgs>();
  // In the order --help lists them.
  add_target_options(cmd, *args);
  add_cost_options(cmd, *args);
  add_output_options(cmd, *args);
  add_pipeline_options(cmd, *args);
  add_glet_options(cmd, *args);
  cmd->callback([&global, &run, args] { run = [&global, args] { return run_plan(global, *args); }; });
}

}  // namespace servescope::cli
