// Regenerates the measured tables of docs/reproduction/ppipe.md (seed 000 §7, Figs. 6, 8, 10):
// for the 24 maf19 cases (HC1-L..HC4-L × the six model groups), the PPipe, NP and DART-r plans
// re-solved here from the artifact's profiles, each run on PPipe's reservation data plane and
// swept from load factor 1.0 down in 0.05 steps (30 s per point; load factor 1 = PPipe's plan,
// the same absolute load for every system) under Poisson and bursty Gamma arrivals; the highest
// load factor at >= 99 % attainment and the low-class GPUs' utilisation there. Then the data-plane
// ablation on the 18 single-model HC2-L cases: reservation vs the reactive per-pool baseline, and
// PPipe's plans under the two reservation-table modes (gap-filling, the default, and horizon).
// Max-min optima tie, and which optimum a solver returns moves the simulated load factors: the
// tables use GLPK's MILP, as the paper used Gurobi's; --solver frontier re-runs them on the
// frontier search's optima (docs/reproduction/ppipe.md, "Beyond the paper").
// Needs ../shared/data/PPipe. Prints Markdown. Usage: repro_ppipe [--quick] (5 s per point)
// [--solver milp|frontier].
#include <cstring>
#include <iomanip>
#include <iostream>
#include <map>
#include <sstream>

#include "bench/ppipe_reference_data.h"
#include "engine/analysis/load_sweep.h"
#include "engine/ppipe/reference_case.h"
#include "engine/systems/ppipe/ppipe_options.h"
#include "engine/systems/scenario_simulation.h"
#include "model/io/document.h"

using namespace servescope;
using namespace servescope::engine;

namespace {

double g_duration_s = 30;
PpipeSolver g_solver = PpipeSolver::Milp;
const double kBurstyShape = 0.25;  // Gamma inter-arrivals, CV 2: the MAF 2021 trace is not in ../shared

// Each model is offered load factor × its own throughput in PPipe's plan, as the artifact does
// (the max-min plan may give a model more than its weight's share).
Scenario scenario_for(const ReferenceCase& c, const PipelinePlan& ppipe, const ArrivalProcess& arrivals) {
  Scenario s;
  s.name = c.name;
  s.cluster =
      std::get<Cluster>(load_document("builtin:clusters/" + bench::reference_cluster(c.gpus) + ".json").content);
  Workload w{"load", 1, arrivals, {}, Popularity::Explicit, 0.9};
  for (std::size_t m = 0; m < c.profiles.size(); ++m) {
    s.profiles.models.push_back(*c.profiles[m]);
    w.targets.push_back({TargetKind::Model, c.profiles[m]->name, ppipe.models[m].throughput_rps, std::nullopt});
  }
  s.workloads.push_back(std::move(w));
  return s;
}

struct Outcome {
  double max_lf = 0;
  double low_busy = 0;  // low-class temporal utilisation at max_lf
};

Outcome sweep(const Scenario& s, const PipelinePlan& plan, double base_rps, const std::string& data_plane,
              const std::string& low_type, ReservationMode mode = ReservationMode::GapFilling) {
  SimulationSpec spec;
  spec.system = data_plane;
  spec.edit_options<PipelineRunOptions>().reservation.mode = mode;
  spec.edit_options<PipelineRunOptions>().plan = std::make_shared<const PipelinePlan>(plan);
  spec.duration = Duration::from_s(g_duration_s);
  spec.warmup = Duration::milliseconds(1);
  spec.drain = Duration::seconds(1);
  LoadSweepOptions o;
  o.stop_at_first = true;
  o.base_rate_rps = base_rps;
  if (plan.pipelines.empty()) return {};
  const auto r = sweep_load(s, spec, o);
  Outcome out{r.max_load_factor, 0};
  if (const auto* best = r.best(); best && best->busy_by_type.contains(low_type))
    out.low_busy = best->busy_by_type.at(low_type);
  return out;
}

std::string pct(double v) {
  std::ostringstream o;
  o << std::fixed << std::setprecision(1) << 100 * v << " %";
  return o.str();
}

std::string signed_pct(double v) {
  return (v >= 0 ? "+" : "") + pct(v);
}

std::string lf(double v) {
  std::ostringstream o;
  o << std::fixed << std::setprecision(2) << v;
  return o.str();
}

}  // namespace

int main(int argc, char** argv) {
  for (int i = 1; i < argc; ++i) {
    if (std::strcmp(argv[i], "--quick") == 0) g_duration_s = 5;
    if (std::strcmp(argv[i], "--solver") == 0 && i + 1 < argc)
      g_solver = std::strcmp(argv[++i], "frontier") == 0 ? PpipeSolver::Frontier : PpipeSolver::Milp;
  }
  std::cout << "<!-- plans by the " << to_string(g_solver) << " -->\n\n";
  if (!std::filesystem::is_directory(bench::ppipe_data_dir() / "plans")) {
    std::cerr << "repro_ppipe: " << bench::ppipe_data_dir().string() << " not found; needs the PPipe artifact's data\n";
    return 2;
  }
  ReferenceProfiles profiles;
  const std::vector<std::pair<std::string, ArrivalProcess>> traces = {{"Poisson", PoissonArrivals{}},
                                                                      {"bursty", GammaArrivals{kBurstyShape}}};
  const std::vector<std::string> systems = {"ppipe", "np", "dart-r"};
  // [trace][system] → per cluster: sums over groups
  std::map<std::string, std::map<std::string, std::map<std::string, std::pair<double, int>>>> gain;
  std::map<std::string, std::map<std::string, std::pair<double, int>>> low_util, reach;
  std::ostringstream modes;  // horizon vs gap-filling rows, printed after the main tables
  double sum_horizon = 0, sum_gaps = 0;
  int n_modes = 0;

  std::cout << "### Max load factor at >= 99 % attainment, per case (" << g_duration_s << " s per point)\n\n"
            << "| cluster | group | PPipe plan req/s | trace | PPipe | NP | DART-r | low-class busy PPipe / NP / "
               "DART-r |\n|---|---|---|---|---|---|---|---|\n";
  for (const auto& file : reference_plan_files(bench::ppipe_data_dir(), "maf19", "v4")) {
    auto c = load_reference_case(bench::ppipe_data_dir(), file, profiles);
    c.options.solver = g_solver;
    const auto models = c.planner_models();
    const std::map<std::string, PipelinePlan> plans = {{"ppipe", plan_ppipe(models, c.gpus, c.options)},
                                                       {"np", plan_np(models, c.gpus, c.options)},
                                                       {"dart-r", plan_dart_r(models, c.gpus, c.options)}};
    const double base = plans.at("ppipe").total_throughput_rps();
    const auto cluster = bench::reference_cluster(c.gpus);
    std::string group;
    for (const auto* p : c.profiles)
      group += (group.empty() ? "" : ", ") + bench::short_model_name(p->name);
    for (const auto& [trace, arrivals] : traces) {
      const auto s = scenario_for(c, plans.at("ppipe"), arrivals);
      std::map<std::string, Outcome> out;
      for (const auto& sys : systems)
        out[sys] = sweep(s, plans.at(sys), base, "reservation", c.gpus[1].gpu);
      std::cout << "| " << cluster << " | " << group << " | " << std::fixed << std::setprecision(1) << base << " | "
                << trace << " | " << lf(out["ppipe"].max_lf) << " | " << lf(out["np"].max_lf) << " | "
                << lf(out["dart-r"].max_lf) << " | " << pct(out["ppipe"].low_busy) << " / " << pct(out["np"].low_busy)
                << " / " << pct(out["dart-r"].low_busy) << " |\n"
                << std::flush;
      if (trace == "Poisson") {
        const auto horizon = sweep(s, plans.at("ppipe"), base, "reservation", c.gpus[1].gpu, ReservationMode::Horizon);
        modes << "| " << cluster << " | " << group << " | " << lf(out["ppipe"].max_lf) << " | " << lf(horizon.max_lf)
              << " |\n";
        sum_horizon += horizon.max_lf;
        sum_gaps += out["ppipe"].max_lf;
        ++n_modes;
      }
      for (const auto& sys : {"np", "dart-r"})
        if (out[sys].max_lf > 0) {
          auto& g = gain[trace][sys][cluster];
          g.first += out["ppipe"].max_lf / out[sys].max_lf - 1;
          ++g.second;
        }
      for (const auto& sys : systems) {
        auto& r = reach[trace][sys];
        r.first += out[sys].max_lf;
        ++r.second;
        if (trace == "Poisson") {
          auto& u = low_util[sys][cluster];
          u.first += out[sys].low_busy;
          ++u.second;
        }
      }
    }
  }
  std::cout << "\n### PPipe's gain in max load factor (mean over the six groups)\n\n"
            << "| vs | trace | HC1-L | HC2-L | HC3-L | HC4-L | all 24 |\n|---|---|---|---|---|---|---|\n";
  for (const auto& sys : {"np", "dart-r"})
    for (const auto& [trace, arrivals] : traces) {
      std::cout << "| " << sys << " | " << trace;
      double sum = 0;
      int cases = 0;
      for (const auto* cl : {"hc1-l", "hc2-l", "hc3-l", "hc4-l"}) {
        const auto& g = gain[trace][sys][cl];
        std::cout << " | " << (g.second ? signed_pct(g.first / g.second) : "n/a");
        sum += g.first;
        cases += g.second;
      }
      std::cout << " | " << (cases ? signed_pct(sum / cases) : "n/a") << " |\n";
    }
  std::cout << "\n### Average reachable load factor and low-class utilisation (Poisson)\n\n"
            << "| system | Poisson | bursty | low-class busy (Poisson, at max LF) |\n|---|---|---|---|\n";
  for (const auto& sys : systems) {
    double u = 0;
    int n = 0;
    for (const auto& [cl, v] : low_util[sys]) {
      u += v.first;
      n += v.second;
    }
    std::cout << "| " << sys << " | " << lf(reach["Poisson"][sys].first / reach["Poisson"][sys].second) << " | "
              << lf(reach["bursty"][sys].first / reach["bursty"][sys].second) << " | " << pct(n ? u / n : 0) << " |\n";
  }

  std::cout << "\n### Reservation tables: gap-filling (default) vs horizon (artifact), PPipe plans, Poisson\n\n"
            << "| cluster | group | gap-filling | horizon |\n|---|---|---|---|\n"
            << modes.str() << "| **average** | | **" << lf(sum_gaps / n_modes) << "** | **" << lf(sum_horizon / n_modes)
            << "** |\n";

  std::cout << "\n### Data-plane ablation: HC2-L, one model at a time, Poisson\n\n"
            << "| model | PPipe plan req/s | reservation | reactive |\n|---|---|---|---|\n";
  double sum_res = 0, sum_rea = 0;
  int n = 0;
  for (const auto& file : reference_plan_files(bench::ppipe_data_dir(), "ablation", "v4")) {
    auto c = load_reference_case(bench::ppipe_data_dir(), file, profiles);
    c.options.solver = g_solver;
    const auto plan = plan_ppipe(c.planner_models(), c.gpus, c.options);
    const auto s = scenario_for(c, plan, PoissonArrivals{});
    const double base = plan.total_throughput_rps();
    const auto res = sweep(s, plan, base, "reservation", c.gpus[1].gpu);
    const auto rea = sweep(s, plan, base, "reactive", c.gpus[1].gpu);
    std::cout << "| " << c.profiles[0]->name << " | " << std::fixed << std::setprecision(1) << base << " | "
              << lf(res.max_lf) << " | " << lf(rea.max_lf) << " |\n"
              << std::flush;
    sum_res += res.max_lf;
    sum_rea += rea.max_lf;
    ++n;
  }
  std::cout << "| **average** | | **" << lf(sum_res / n) << "** | **" << lf(sum_rea / n) << "** |\n";
  return 0;
}
