#include "bench/glet_stand_in.h"

#include <algorithm>

#include "engine/glet/synthetic_profile.h"
#include "engine/systems/glet/glet_options.h"
#include "engine/systems/scenario_simulation.h"
#include "model/import/glet_import.h"
#include "model/io/document.h"
#include "model/io/file_io.h"

namespace servescope::bench {

using namespace servescope::engine;

const std::vector<int> kSizes = {20, 40, 50, 60, 80, 100};

std::filesystem::path shared() {
  if (const char* env = std::getenv("SERVESCOPE_SHARED_DATA")) return env;
  return SERVESCOPE_SHARED_DATA_DIR;
}

const std::vector<PaperModel> kModels = {{"goo", "inception", "googlenet", 66},
                                         {"le", "", "lenet", 5},
                                         {"res", "resnet50", "resnet50", 108},
                                         {"ssd", "", "ssd-mobilenetv1", 202},
                                         {"vgg", "vgg16", "vgg16", 142},
                                         {"nas", "", "mnasnet1_0", 62},
                                         {"mob", "mobilenet", "mobilenet_v2", 64},
                                         {"den", "densenet201", "densenet161", 202},
                                         {"be", "", "bert", 22}};

Library load_library() {
  const auto inference = shared() / "Gpulet-0909wlgur/data/inference.csv";
  const auto util = shared() / "glet/resource/2080ti/UTIL.CSV";
  const auto coeff = shared() / "glet/resource/2080ti/INT_MODEL_CONSTANT.CSV";
  const auto standin = parse_partition_latency_csv(read_text_file(inference), inference.string(), "RTX2080Ti");
  const auto utilisation = parse_glet_utilisation(read_text_file(util), util.string(), "RTX2080Ti");
  Library lib;
  lib.interference = parse_glet_interference(read_text_file(coeff), coeff.string(), "RTX2080Ti");
  for (const auto& m : kModels) {
    ModelProfile p;
    if (!m.standin.empty()) {
      p = standin.profiles.get(m.standin);
      // The paper's rule: SLO = 2 × solo latency at batch 32 on the whole GPU.
      p.default_slo = p.latency({"RTX2080Ti", GpuShare::whole(), 32, std::nullopt}) * 2;
    } else {
      SyntheticGletShape shape;
      shape.c0 = Duration::microseconds(1000);
      p = synthetic_glet_profile(m.abbr, "RTX2080Ti", Duration::milliseconds(m.table4_slo_ms), kSizes, shape);
    }
    p.name = m.abbr;
    lib.profiles[m.abbr] = p;
    for (auto u : utilisation)
      if (u.model == m.util) {
        u.model = m.abbr;
        lib.utilisation[m.abbr] = u;
      }
  }
  return lib;
}

Scenario make_scenario(const Library& lib, const std::vector<Member>& members, double rate_each,
                       const std::optional<Application>& app) {
  Scenario s;
  s.name = "glet reproduction";
  s.cluster = std::get<Cluster>(load_document("builtin:clusters/glet-2x2-rtx2080ti.json").content);
  Workload w{"mix", rate_each * static_cast<double>(members.size()), PoissonArrivals{}, {}, Popularity::Equal, 0.9};
  for (const auto& m : members) {
    auto p = lib.profiles.at(m.profile);
    p.name = m.name;
    s.profiles.models.push_back(std::move(p));
    if (lib.utilisation.contains(m.profile)) {
      auto u = lib.utilisation.at(m.profile);
      u.model = m.name;
      s.profiles.utilisation.push_back(std::move(u));
    }
    w.targets.push_back({TargetKind::Model, m.name, m.rate_rps > 0 ? m.rate_rps : rate_each, m.slo});
  }
  if (std::ranges::any_of(members, [](const Member& m) { return m.rate_rps > 0; })) {
    w.popularity = Popularity::Explicit;
    w.rate_rps = 0;
    for (const auto& t : w.targets)
      w.rate_rps += t.weight;
  }
  s.profiles.interference.push_back(lib.interference);
  if (app) {
    s.applications.push_back(*app);
    w.rate_rps = rate_each;
    w.targets = {{TargetKind::Application, app->name, 1.0, std::nullopt}};
  }
  s.workloads.push_back(std::move(w));
  return s;
}

double median_violations(const Scenario& s, const GletPlan& plan, int seeds, Duration duration) {
  std::vector<double> v;
  for (std::uint64_t seed = 1; seed <= static_cast<std::uint64_t>(seeds); ++seed) {
    SimulationSpec spec;
    spec.system = "glet";
    spec.edit_options<GletRunOptions>().plan = std::make_shared<const GletPlan>(plan);
    spec.duration = duration;
    spec.warmup = Duration::seconds(1);
    spec.seed = seed;
    v.push_back(1 - simulate(s, spec).metrics->total().attainment());
  }
  std::ranges::sort(v);
  return v[v.size() / 2];
}

}  // namespace servescope::bench
