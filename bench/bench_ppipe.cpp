// PPipe's speed targets (issue 4; seed 000 §7.5 reports 3.5 s per Gurobi solve and < 9 µs of
// dispatch per batch):
//  - the control plane on the authors' cases: the 24 multi-model 2-partition maf19 plans and the
//    18 single-model 3-partition ablation plans, re-solved with GLPK from the artifact's profiles,
//    each beside the reference plan's max-min objective (needs ../shared/data; skipped without);
//  - the data plane: wall time per dispatched batch of the reservation scheduler on 100 GPUs;
//  - a whole load-factor sweep: 20 points × 30 s of 3 models on 100 GPUs.
#include <benchmark/benchmark.h>
#include <filesystem>
#include <iostream>

#include "engine/ppipe/reference_case.h"

using namespace servescope;
using namespace servescope::engine;

namespace {

std::filesystem::path data_dir() {
  if (const char* env = std::getenv("SERVESCOPE_SHARED_DATA")) return std::filesystem::path(env) / "PPipe/data";
  return std::filesystem::path(SERVESCOPE_SHARED_DATA_DIR) / "PPipe/data";
}

ReferenceProfiles& profile_cache() {
  static ReferenceProfiles cache;
  return cache;
}

// One solve per iteration; counters: our objective, the reference's, their ratio, columns.
void solve_case(benchmark::State& state, const std::filesystem::path& file, const std::string& system) {
  const auto c = load_reference_case(data_dir(), file, profile_cache());
  const auto models = c.planner_models();
  PipelinePlan plan;
  for (auto _ : state) {
    if (system == "v4")
      plan = plan_ppipe(models, c.gpus, c.options);
    else if (system == "bl")
      plan = plan_np(models, c.gpus, c.options);
    else
      plan = plan_dart_r(models, c.gpus, c.options);
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
  if (!c.reference.empty() && c.reference[0].runtime_s >= 0) state.counters["reference_s"] = c.reference[0].runtime_s;
}

void register_solves() {
  const auto dir = data_dir();
  if (!std::filesystem::is_directory(dir / "plans")) {
    std::cerr << "bench_ppipe: " << dir.string()
              << " not found: the control-plane cases need the PPipe artifact's data (../shared/data); skipped\n";
    return;
  }
  for (const auto& [folder, system] : std::vector<std::pair<std::string, std::string>>{
           {"maf19", "v4"}, {"maf19", "bl"}, {"maf19", "dart-r"}, {"ablation", "v4"}})
    for (const auto& f : reference_plan_files(dir, folder, system)) {
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
