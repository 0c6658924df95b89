// `servescope-cli plan`: runs a planner on a scenario through the engine's one dispatch
// (plan_scenario, which the GUI uses too) and writes the plan as JSON; prints the pipelines, the
// glets or the cost plan's modules, and how the solve or the checks went.
#include <iomanip>
#include <iostream>
#include <optional>
#include <type_traits>
#include <variant>

#include "app/cli/cli_context.h"
#include "app/cli/option_flags.h"
#include "engine/systems/scenario_planner.h"
#include "model/io/document.h"

namespace servescope::cli {
namespace {

void print_plan(std::ostream& out, const engine::PipelinePlan& plan) {
  out << std::fixed << std::setprecision(1);
  out << plan.system << ": " << plan.total_throughput_rps() << " req/s in all; " << plan.solve.objective_kind
      << " solved by the " << plan.solve.solver << " (" << plan.solve.status << ") in " << std::setprecision(2)
      << plan.solve.seconds << " s over " << plan.solve.columns << " candidate pipelines";
  if (!plan.solve.proven_optimal && plan.solve.status == "feasible")
    out << " (gap " << std::setprecision(2) << 100 * plan.solve.gap << " %)";
  out << "\n" << std::setprecision(1);
  for (std::size_t i = 0; i < plan.solve.stages.size(); ++i) {
    const auto& stage = plan.solve.stages[i];
    out << "  stage " << i + 1 << ": " << stage.level << " req/s per unit of weight, held:";
    for (const auto& name : stage.fixed_models)
      out << " " << name;
    out << "\n";
  }
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

struct PlanArgs {
  std::string scenario, system = "ppipe", out;
  std::vector<std::string> workloads;
  double latency_quantile = kDefaultLatencyQuantile;
  // Each planner family's options (PPipe's MILP, gpu-let's splits, the cost planners' prices),
  // made from the registry's schemas; only the chosen planner's family's are accepted.
  FamilyFlags<engine::ScenarioPlanRequest> family_flags;
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

// Which workloads, and where the plan goes.
void add_output_options(CLI::App* cmd, PlanArgs& args) {
  cmd->add_option("-w,--workload", args.workloads, "Workload whose models to plan (repeatable; default: all)");
  cmd->add_option("--latency-quantile", args.latency_quantile,
                  "Plan against this quantile of each batch's measured latency, where a profile keeps distributions "
                  "(servescope-cli profile); 0.5: the medians")
      ->check(CLI::Range(0.05, 0.999))
      ->capture_default_str();
  cmd->add_option("-o,--out", args.out, "Write the plan as JSON (atomically; - is standard output)");
}

// Plans, writes the plan and prints it; the exit status says whether a plan came out.
int run_plan(const GlobalOptions& global, const PlanArgs& args) {
  check_outputs({args.out});
  engine::ScenarioPlanRequest request;
  request.system = args.system;
  request.workloads = args.workloads;
  request.latency_quantile = args.latency_quantile;
  args.family_flags.apply(request, engine::planning_family(args.system), args.system);
  auto doc = load_document(args.scenario);
  const auto project = project_from_document(std::move(doc), args.scenario);
  if (!global.json)
    request.on_start = [&](const engine::PlanningStart& start) {
      std::cerr << "planning " << args.system;
      if (start.family == engine::PlannerFamily::Pipeline)
        std::cerr << " for " << start.models << " model(s) on " << start.gpus << " GPUs (solver limit "
                  << request.ppipe.time_limit_s << " s)";
      else if (start.family == engine::PlannerFamily::Glet)
        std::cerr << " for " << start.models << " model(s) on up to " << start.gpus << " " << start.gpu << " GPUs";
      std::cerr << "...\n";
    };
  const auto result = engine::plan_scenario(project.scenario, request);
  if (!args.out.empty()) save_json_file(args.out, result.plan);
  if (global.json) print_json(result.plan);
  if (!global.json && result.latency_quantile)
    report_stream() << "planned at each measured batch's " << quantile_name(*result.latency_quantile)
                    << " latency (--latency-quantile)\n";
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
  add_output_options(cmd, *args);
  args->family_flags.add_to(cmd, planner_option_groups());
  cmd->callback([&global, &run, args] { run = [&global, args] { return run_plan(global, *args); }; });
}

}  // namespace servescope::cli
