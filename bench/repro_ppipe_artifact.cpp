// The PPipe authors' own plans in ServeScope's simulator under each of the artifact simulator's
// rules (issue 49; docs/reproduction/ppipe.md, "Against the artifact's simulator"): the 24 maf19
// PPipe plans, every model alone on its pipelines as the artifact's cluster-sim runs it (one
// --dnn-id at a time), Poisson arrivals at load factor 1.0 (the plan's throughput), 30 s. For
// each model, the SLO attainment under ServeScope's defaults, with each default rule switched back
// in turn, and under the artifact's whole configuration. A model whose default falls more than a point below
// the artifact's configuration is marked: there the default gives away what a rule would keep.
// Needs ../shared/data/PPipe. Prints Markdown. Usage: repro_ppipe_artifact [--quick] (5 s runs)
// [--joint] (the three models of a plan together, sharing the cluster's links).
#include <cstring>
#include <functional>
#include <iomanip>
#include <iostream>
#include <sstream>

#include "bench/ppipe_reference_data.h"
#include "engine/ppipe/reference_case.h"
#include "engine/ppipe/reference_plan_import.h"
#include "engine/systems/ppipe/ppipe_options.h"
#include "engine/systems/scenario_simulation.h"
#include "model/core/error.h"

using namespace servescope;
using namespace servescope::engine;

namespace {

struct Config {
  const char* name;
  std::function<void(PipelineRunOptions&)> set;
};

// What each column changes from the defaults. "artifact" is the whole configuration that
// reproduces cluster-sim's drops: its tables, wake rule, admission, pick and links.
const std::vector<Config>& configs() {
  static const std::vector<Config> all = {
      {"defaults", [](PipelineRunOptions&) {}},
      {"--uplink-blind", [](PipelineRunOptions& o) { o.reservation.probe.avoid_jammed_uplink = false; }},
      {"--first-look 0", [](PipelineRunOptions& o) { o.reservation.first_look_min_fraction = 0; }},
      {"both (the paper's rules)",
       [](PipelineRunOptions& o) {
         o.reservation.probe.avoid_jammed_uplink = false;
         o.reservation.first_look_min_fraction = 0;
       }},
      {"--network artifact", [](PipelineRunOptions& o) { o.network = NetworkLayout::Artifact; }},
      {"artifact", {}},  // artifact_simulator_options(), by name
  };
  return all;
}

// Attainment of each model of `imported`, alone or together, under `config`.
std::vector<double> attainment(const ImportedReferencePlan& imported, const Config& config, double duration_s,
                               bool joint) {
  std::vector<double> out;
  const auto plan = std::make_shared<const PipelinePlan>(imported.plan);
  const auto& targets = imported.scenario.workloads.at(0).targets;
  auto run = [&](const Scenario& scenario) {
    SimulationSpec spec;
    spec.system = "reservation";
    spec.duration = Duration::from_s(duration_s);
    spec.warmup = Duration::milliseconds(1);  // the artifact leaves out the first millisecond's arrivals
    spec.seed = 1;
    spec.edit_options<PipelineRunOptions>().plan = plan;
    if (config.set)
      config.set(spec.edit_options<PipelineRunOptions>());
    else
      apply_artifact_simulator_options(spec);
    const auto result = simulate(scenario, spec);
    return result.metrics->models();
  };
  if (joint) {
    for (const auto& m : run(imported.scenario))
      out.push_back(m.attainment());
    return out;
  }
  for (const auto& target : targets) {
    Scenario alone = imported.scenario;
    auto& w = alone.workloads.at(0);
    w.targets = {target};
    w.rate_rps = target.weight;  // the import weighs each model by its planned throughput
    out.push_back(run(alone).at(0).attainment());
  }
  return out;
}

}  // namespace

int main(int argc, char** argv) try {
  double duration_s = 30;
  bool joint = false;
  for (int i = 1; i < argc; ++i) {
    if (!std::strcmp(argv[i], "--quick"))
      duration_s = 5;
    else if (!std::strcmp(argv[i], "--joint"))
      joint = true;
    else {
      std::cerr << "usage: repro_ppipe_artifact [--quick] [--joint]\n";
      return 2;
    }
  }
  const auto data = bench::ppipe_data_dir();
  if (!std::filesystem::exists(data / "plans/maf19")) {
    std::cerr << "repro_ppipe_artifact: " << data << "/plans/maf19 is absent; nothing to measure\n";
    return 0;
  }
  std::cout << "| plan, model |";
  for (const auto& c : configs())
    std::cout << ' ' << c.name << " |";
  std::cout << "\n|---|";
  for (std::size_t i = 0; i < configs().size(); ++i)
    std::cout << "---:|";
  std::cout << '\n' << std::fixed << std::setprecision(2);
  std::vector<double> sum(configs().size(), 0);
  int models = 0, below = 0;
  double worst = 0;
  ReferenceProfiles profiles;
  for (const auto& file : reference_plan_files(data, "maf19", "v4")) {
    const auto imported = import_reference_plan(data, file);
    const auto cluster = bench::reference_cluster(load_reference_case(data, file, profiles).gpus);
    std::vector<std::vector<double>> columns;
    for (const auto& c : configs())
      columns.push_back(attainment(imported, c, duration_s, joint));
    for (std::size_t m = 0; m < columns[0].size(); ++m) {
      const double gap = columns.back()[m] - columns[0][m];
      const bool marked = gap > 0.01;
      below += marked;
      worst = std::max(worst, gap);
      ++models;
      std::cout << "| " << cluster << ' ' << bench::short_model_name(imported.plan.models[m].name)
                << (marked ? " **(default > 1 pt below)**" : "") << " |";
      for (std::size_t c = 0; c < columns.size(); ++c) {
        std::cout << ' ' << 100 * columns[c][m] << " |";
        sum[c] += columns[c][m];
      }
      std::cout << '\n' << std::flush;
    }
  }
  std::cout << "| **mean of " << models << "** |";
  for (const auto s : sum)
    std::cout << " **" << 100 * s / models << "** |";
  std::cout << "\n\n"
            << below << " of " << models << " models more than a point below the artifact's configuration "
            << "with the defaults (worst " << 100 * worst << " points); " << duration_s << " s per run"
            << (joint ? ", the plan's models together" : ", each model alone") << ".\n";
  return 0;
} catch (const std::exception& e) {
  std::cerr << "repro_ppipe_artifact: " << e.what() << '\n';
  return 1;
}
