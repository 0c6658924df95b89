// PPipe's speed targets (BENCHMARKS.md "PPipe"; seed 000 §7.5 reports 3.5 s per Gurobi solve and
// < 9 µs of dispatch per batch):
//  - the control plane on the authors' cases: the 24 multi-model 2-partition maf19 plans and the
//    18 single-model 3-partition ablation plans, re-solved with GLPK from the artifact's profiles,
//    each beside the reference plan's max-min objective (needs ../shared/data; skipped without);
//  - the data plane: wall time per dispatched batch of the reservation scheduler on 100 GPUs;
//  - a whole load-factor sweep: 20 points × 30 s of 3 models on 100 GPUs.
#include <benchmark/benchmark.h>
#include <filesystem>
#include <iostream>
#include <map>
#include <random>

#include "bench/ppipe_reference_data.h"
#include "engine/analysis/load_sweep.h"
#include "engine/ppipe/reference_case.h"
#include "engine/systems/ppipe/ppipe_options.h"
#include "engine/systems/scenario_simulation.h"
#include "model/import/ppipe_import.h"
#include "model/io/document.h"

using namespace servescope;
using namespace servescope::engine;

namespace {

ReferenceProfiles& profile_cache() {
  static ReferenceProfiles cache;
  return cache;
}

// The random mixes' profiles, imported once each.
std::map<std::string, ModelProfile>& profile_models() {
  static std::map<std::string, ModelProfile> cache;
  return cache;
}

// One solve per iteration; counters: our objective, the reference's, their ratio, columns.
// `system` is the reference file's, or "v4-multi": PPipe with several configs per type sequence.
void solve_case(benchmark::State& state, const std::filesystem::path& file, const std::string& system) {
  const auto c = load_reference_case(bench::ppipe_data_dir(), file, profile_cache());
  const auto models = c.planner_models();
  auto options = c.options;
  options.several_configs_per_sequence = system == "v4-multi";
  PipelinePlan plan;
  for (auto _ : state) {
    if (system.starts_with("v4"))
      plan = plan_ppipe(models, c.gpus, options);
    else if (system == "bl")
      plan = plan_np(models, c.gpus, options);
    else
      plan = plan_dart_r(models, c.gpus, options);
    benchmark::DoNotOptimize(plan);
  }
  const double ours = normalised_throughput_rps(plan), theirs = c.reference_normalised_rps();
  state.counters["ours_rps"] = ours;
  state.counters["reference_rps"] = theirs;
  state.counters["ratio"] = theirs > 0 ? ours / theirs : 0;
  state.counters["solve_s"] = plan.solve.seconds;
  state.counters["columns"] = plan.solve.columns;
  state.counters["enumerated"] = plan.solve.enumerated_columns;
  state.counters["optimal"] = plan.solve.proven_optimal;
  // 0 where the reference plan needs more GPUs than the cluster once each partition has whole GPUs.
  state.counters["reference_fits"] = c.reference_fits_whole_gpus();
  if (!c.reference.empty() && c.reference[0].runtime_s >= 0) state.counters["reference_s"] = c.reference[0].runtime_s;
}

// The paper's G4 group (FCN, GFL, WideResNet) on HC3-L (25 V100 + 75 P4), MAF19 weights, with
// the artifact's profiles; the PPipe plan re-solved here. Nullopt without the data.
struct G4Case {
  Scenario scenario;
  PipelinePlan plan;
};
const G4Case* g4_case() {
  static const std::optional<G4Case> c = []() -> std::optional<G4Case> {
    const auto files = reference_plan_files(bench::ppipe_data_dir(), "maf19", "v4");
    const auto it = std::ranges::find_if(files, [](const std::filesystem::path& f) {
      const auto n = f.filename().string();
      return n.starts_with("fcn") && n.find("_V100-P4_") != std::string::npos;
    });
    if (it == files.end()) return std::nullopt;
    const auto rc = load_reference_case(bench::ppipe_data_dir(), *it, profile_cache());
    G4Case out;
    out.scenario.name = "G4 on HC3-L";
    out.scenario.cluster = std::get<Cluster>(load_document("builtin:clusters/hc3-l.json").content);
    Workload w{"g4", 0, PoissonArrivals{}, {}, Popularity::Explicit, 0.9};
    out.plan = plan_ppipe(rc.planner_models(), rc.gpus, rc.options);
    for (std::size_t m = 0; m < rc.profiles.size(); ++m) {
      out.scenario.profiles.models.push_back(*rc.profiles[m]);
      // Each model offered its own planned throughput × the load factor.
      w.targets.push_back({TargetKind::Model, rc.profiles[m]->name, out.plan.models[m].throughput_rps, std::nullopt});
    }
    w.rate_rps = out.plan.total_throughput_rps();
    out.scenario.workloads.push_back(std::move(w));
    return out;
  }();
  return c ? &*c : nullptr;
}

SimulationSpec g4_spec(const G4Case& c) {
  SimulationSpec spec;
  spec.system = "reservation";
  spec.edit_options<PipelineRunOptions>().plan = std::make_shared<const PipelinePlan>(c.plan);
  spec.duration = Duration::seconds(30);
  spec.warmup = Duration::milliseconds(1);
  spec.drain = Duration::seconds(1);
  return spec;
}

// Wall time of a whole simulated run per dispatched batch: the scheduler's probes and
// reservations plus everything else the simulator does, so an upper bound on dispatch cost.
void BM_DispatchPerBatch100Gpus(benchmark::State& state) {
  const auto* c = g4_case();
  if (!c) {
    state.SkipWithError("needs ../shared/data/PPipe");
    return;
  }
  auto spec = g4_spec(*c);
  spec.load_factor = 0.9;
  // Arg 0: gap-filling tables (the default); 1: horizon (the artifact's busy-until rule).
  spec.edit_options<PipelineRunOptions>().reservation.mode =
      state.range(0) == 0 ? ReservationMode::GapFilling : ReservationMode::Horizon;
  double wall = 0, dispatches = 0, probes = 0, attainment = 0;
  for (auto _ : state) {
    const auto r = simulate(c->scenario, spec);
    wall += r.wall_seconds;
    dispatches += static_cast<double>(r.dispatches);
    probes += static_cast<double>(r.probes);
    attainment = r.metrics->total().attainment();
  }
  state.counters["us_per_dispatch"] = 1e6 * wall / dispatches;
  state.counters["probes_per_dispatch"] = probes / dispatches;
  state.counters["dispatches_per_run"] = dispatches / static_cast<double>(state.iterations());
  state.counters["slo_attainment"] = attainment;
}
BENCHMARK(BM_DispatchPerBatch100Gpus)->Arg(0)->Arg(1)->Unit(benchmark::kMillisecond)->UseRealTime()->Iterations(3);

// 20 load factors (1.0 down to 0.05) × 30 s simulated, 3 models on 100 GPUs, every point run.
void BM_WholeSweep100Gpus(benchmark::State& state) {
  const auto* c = g4_case();
  if (!c) {
    state.SkipWithError("needs ../shared/data/PPipe");
    return;
  }
  LoadSweepOptions options;
  double max_lf = 0;
  for (auto _ : state)
    max_lf = sweep_load(c->scenario, g4_spec(*c), options).max_load_factor;
  state.counters["max_load_factor"] = max_lf;
  state.counters["plan_rps"] = c->plan.total_throughput_rps();
}
BENCHMARK(BM_WholeSweep100Gpus)->Unit(benchmark::kSecond)->UseRealTime()->Iterations(1);

// Random mixes of our own (issue 25): 4 of the artifact's 28 models with random weights on 3 of
// its 4 GPU types, 100 GPUs split at random (at least 4 of a type), 1, 2 or 4 GPUs per server,
// 6 or 10 Gbps, P = 2 or 3. Nullopt without the data.
struct RandomMix {
  std::vector<const ModelProfile*> profiles;
  std::vector<double> weights;
  std::vector<PlannerGpuType> gpus;
  PpipeOptions options;
  std::vector<PlannerModel> models() const {
    std::vector<PlannerModel> out;
    for (std::size_t m = 0; m < profiles.size(); ++m)
      out.push_back({profiles[m], *profiles[m]->default_slo, weights[m]});
    return out;
  }
};

std::optional<RandomMix> random_mix(unsigned seed) {
  const auto models_dir = bench::ppipe_data_dir() / "models" / "model-profile-tf32";
  if (!std::filesystem::is_directory(models_dir)) return std::nullopt;
  std::vector<std::string> names;
  for (const auto& entry : std::filesystem::directory_iterator(models_dir))
    names.push_back(entry.path().filename().string());
  std::ranges::sort(names);
  std::mt19937 rng(seed);
  std::shuffle(names.begin(), names.end(), rng);
  std::vector<std::string> types = {"L4", "P4", "T4", "V100"};
  std::shuffle(types.begin(), types.end(), rng);
  RandomMix mix;
  std::uniform_real_distribution<double> weight(0.05, 1);
  double total = 0;
  for (int m = 0; m < 4; ++m) {
    const auto& name = names[static_cast<std::size_t>(m)];
    auto it = profile_models().find(name);
    if (it == profile_models().end())
      it = profile_models()
               .emplace(name, import_ppipe_model(bench::ppipe_data_dir(), name, GpuCatalog::builtin()))
               .first;
    mix.profiles.push_back(&it->second);
    mix.weights.push_back(weight(rng));
    total += mix.weights.back();
  }
  for (auto& w : mix.weights)
    w /= total;
  std::uniform_int_distribution<int> first(4, 92);
  const int a = first(rng);
  std::uniform_int_distribution<int> second(4, 96 - a);
  const int b = second(rng);
  const int counts[3] = {a, b, 100 - a - b};
  const int per_server[3] = {1, 2, 4};
  std::uniform_int_distribution<int> pick(0, 2);
  const double nic = std::uniform_int_distribution<int>(0, 1)(rng) ? 10 : 6;
  for (int k = 0; k < 3; ++k)
    mix.gpus.push_back({types[static_cast<std::size_t>(k)], counts[k], per_server[pick(rng)], nic});
  mix.options.max_partitions = 2 + static_cast<int>(seed % 2);
  return mix;
}

// Every random mix, solved as a user would (Auto, lexicographic): the distribution of solve
// times, whether every one was proven optimal, and which solver each got.
void BM_RandomMixes(benchmark::State& state) {
  const auto count = static_cast<unsigned>(state.range(0));
  std::vector<double> seconds;
  int proven = 0, frontier = 0, stages = 0;
  for (auto _ : state) {
    seconds.clear();
    proven = frontier = stages = 0;
    for (unsigned seed = 1; seed <= count; ++seed) {
      const auto mix = random_mix(seed);
      if (!mix) {
        state.SkipWithError("needs ../shared/data/PPipe");
        return;
      }
      const auto plan = plan_ppipe(mix->models(), mix->gpus, mix->options);
      seconds.push_back(plan.solve.seconds);
      proven += plan.solve.proven_optimal;
      frontier += plan.solve.solver == "frontier";
      stages += static_cast<int>(plan.solve.stages.size());
    }
  }
  std::ranges::sort(seconds);
  state.counters["cases"] = static_cast<double>(seconds.size());
  state.counters["proven"] = proven;
  state.counters["frontier"] = frontier;
  state.counters["stages_mean"] = static_cast<double>(stages) / static_cast<double>(seconds.size());
  state.counters["median_s"] = seconds[seconds.size() / 2];
  state.counters["p90_s"] = seconds[seconds.size() * 9 / 10];
  state.counters["max_s"] = seconds.back();
}
BENCHMARK(BM_RandomMixes)->Arg(100)->Unit(benchmark::kSecond)->UseRealTime()->Iterations(1);

// The first mixes under the paper's objective by both solvers: the MILP's time (60 s limit) and
// status beside the frontier's, and whether they agree on z.
void BM_RandomMixesFrontierAgainstMilp(benchmark::State& state) {
  const auto seed = static_cast<unsigned>(state.range(0));
  const auto mix = random_mix(seed);
  if (!mix) {
    state.SkipWithError("needs ../shared/data/PPipe");
    return;
  }
  auto o = mix->options;
  o.objective = PpipeObjective::MaxMin;
  PipelinePlan frontier, milp;
  for (auto _ : state) {
    o.solver = PpipeSolver::Frontier;
    frontier = plan_ppipe(mix->models(), mix->gpus, o);
    o.solver = PpipeSolver::Milp;
    milp = plan_ppipe(mix->models(), mix->gpus, o);
  }
  state.counters["frontier_s"] = frontier.solve.seconds;
  state.counters["milp_s"] = milp.solve.seconds;
  state.counters["milp_optimal"] = milp.solve.proven_optimal;
  state.counters["z_ratio"] = frontier.solve.objective > 0 ? milp.solve.objective / frontier.solve.objective : 1;
  state.counters["P"] = o.max_partitions;
}
BENCHMARK(BM_RandomMixesFrontierAgainstMilp)->DenseRange(1, 12)->Unit(benchmark::kSecond)->UseRealTime()->Iterations(1);

void register_solves() {
  const auto dir = bench::ppipe_data_dir();
  if (!std::filesystem::is_directory(dir / "plans")) {
    std::cerr << "bench_ppipe: " << dir.string()
              << " not found: the control-plane cases need the PPipe artifact's data (../shared/data); skipped\n";
    return;
  }
  for (const auto& [folder, system] : std::vector<std::pair<std::string, std::string>>{
           {"maf19", "v4"}, {"maf19", "bl"}, {"maf19", "dart-r"}, {"ablation", "v4"}, {"ablation", "v4-multi"}})
    for (const auto& f : reference_plan_files(dir, folder, system == "v4-multi" ? "v4" : system)) {
      const auto name = "Solve/" + folder + "/" + system + "/" + f.filename().string();
      benchmark::RegisterBenchmark(name.c_str(), [f, system](benchmark::State& s) { solve_case(s, f, system); })
          ->Iterations(1)
          ->Unit(benchmark::kSecond)
          ->UseRealTime();
    }
}

}  // namespace

int main(int argc, char** argv) {
  register_solves();
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
