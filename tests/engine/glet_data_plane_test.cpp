// gpu-let's runtime in the simulator (seed 003 §5.2; digest §5.3): plans meet their SLOs at the
// rate they were made for, requests spread over a model's glets in proportion to the planned
// rates, co-located glets slow each other down by the interference model while both run, and a
// model the plan does not serve is dropped for want of capacity.
#include <cmath>
#include <gtest/gtest.h>
#include <map>
#include <sstream>

#include "engine/glet/glet_baselines.h"
#include "engine/glet/glet_scenario.h"
#include "engine/sim/scenario_simulation.h"
#include "model/io/document.h"
#include "tests/support/test_support.h"

using namespace servescope;
using namespace servescope::engine;

namespace {

// A table profile over the glet sizes: L(b, p) = c + w·b / (p/100)^0.7 ms (bigger glets help,
// with diminishing returns).
std::string model_json(const std::string& name, double c_ms, double w_ms) {
  std::ostringstream o;
  o << R"({"name": ")" << name << R"(", "form": "table", "tables": [)";
  bool first = true;
  for (const int p : {20, 40, 50, 60, 80, 100}) {
    o << (first ? "" : ",") << R"({"gpu": "RTX2080Ti", "share": ")" << p << R"(%", "batches": [)";
    for (int b = 1; b <= 32; ++b)
      o << (b > 1 ? "," : "") << b;
    o << R"(], "latency_us": [)";
    for (int b = 1; b <= 32; ++b)
      o << (b > 1 ? "," : "") << 1000 * (c_ms + w_ms * b / std::pow(p / 100.0, 0.7));
    o << "]}";
    first = false;
  }
  o << "]}";
  return o.str();
}

std::string utilisation_json(const std::string& name, double l2, double dram) {
  std::ostringstream o;
  o << R"({"model": ")" << name << R"(", "gpu": "RTX2080Ti", "samples": [{"batch": 1, "sm_util": 0.2, "l2_util": )"
    << l2 / 2 << R"(, "dram_util": )" << dram / 2 << R"(}, {"batch": 32, "sm_util": 0.9, "l2_util": )" << l2
    << R"(, "dram_util": )" << dram << "}]}";
  return o.str();
}

// Two RTX 2080 Ti servers with two GPUs each (the paper's testbed), models a (light) and b
// (heavy), one Poisson workload with both, and the 2080 Ti interference coefficients.
std::string scenario_json(double rate_rps, const std::string& extra_target = "") {
  std::ostringstream o;
  o << R"({"schema_version": 1, "kind": "scenario", "name": "glet fixture",
  "cluster": {"name": "2x2 2080 Ti", "nodes": [
    {"name": "srv", "gpu": "RTX2080Ti", "gpu_count": 2, "count": 2, "nic_up_gbps": 10, "nic_down_gbps": 10}]},
  "profiles": [)"
    << model_json("a", 1.5, 0.25) << "," << model_json("b", 3, 0.9) << "," << model_json("c", 2, 0.5) << R"(],
  "utilisation": [)"
    << utilisation_json("a", 0.2, 0.4) << "," << utilisation_json("b", 0.3, 0.6) << R"(],
  "interference": [{"gpu": "RTX2080Ti", "l2_self": 0.11291, "l2_other": 0.71596, "dram_self": 0.35487,
                    "dram_other": 0.08820, "constant": 0.89537}],
  "workloads": [{"name": "w", "rate_rps": )"
    << rate_rps << R"(, "arrival": {"process": "poisson"},
    "targets": [{"model": "a", "slo_us": 30000}, {"model": "b", "slo_us": 80000})"
    << extra_target << "]}]}";
  return o.str();
}

struct Run {
  Scenario scenario;
  GletPlan plan;
  SimulationResult result;
};

Run plan_and_run(const std::string& system, double rate_rps, double load_factor = 1.0,
                 const std::string& extra_target = "") {
  test::TempDir dir;
  const auto scenario = std::get<Scenario>(load_document(dir.write("s.json", scenario_json(rate_rps))).content);
  const auto in = glet_input(scenario, {});
  Run run;
  run.scenario = scenario;
  run.plan = plan_glet_system(system, in.models, in.latency, GletPlannerOptions{}, 1, in.gpu_limit);
  EXPECT_TRUE(run.plan.feasible) << run.plan.message;
  const auto run_scenario =
      extra_target.empty()
          ? scenario
          : std::get<Scenario>(load_document(dir.write("t.json", scenario_json(rate_rps, extra_target))).content);
  SimulationSpec spec;
  spec.system = "glet";
  spec.glet_plan = &run.plan;
  spec.load_factor = load_factor;
  spec.duration = Duration::seconds(20);
  spec.warmup = Duration::seconds(1);
  spec.timeline = true;
  run.result = simulate(run_scenario, spec);
  return run;
}

}  // namespace

TEST(GletDataPlane, PlansMeetTheirSloBelowThePlannedRate) {
  for (const auto* system : {"glet", "glet-noint", "sbp", "greedy-bestfit"}) {
    const auto run = plan_and_run(system, 1200, 0.8);
    EXPECT_GE(run.result.metrics->total().attainment(), 0.99) << system;
    EXPECT_EQ(run.result.plan_system, system);
    EXPECT_NEAR(run.result.nominal_capacity_rps, 1200, 1200 * 0.011) << system;
    // No glet runs two batches at once.
    std::map<std::uint32_t, Time> free_at;
    for (const auto& s : run.result.timeline) {
      EXPECT_GE(s.start, free_at[s.gpu]) << system;
      free_at[s.gpu] = s.end;
    }
  }
}

TEST(GletDataPlane, RequestsFollowThePlannedRatesAcrossAModelsGlets) {
  const auto run = plan_and_run("glet", 2400);
  // Requests of each model per glet slot, against the rates the plan gave those glets.
  std::map<std::pair<std::uint32_t, std::uint32_t>, double> served, planned;
  for (const auto& s : run.result.timeline)
    served[{s.model, s.gpu}] += s.size;
  std::uint32_t slot = 0;
  for (const auto& gpu : run.plan.layout.gpus)
    for (const auto& l : gpu.glets) {
      if (l.free()) continue;
      for (const auto& a : l.models)
        planned[{static_cast<std::uint32_t>(a.model), slot}] += a.rate_rps;
      ++slot;
    }
  int split = 0;
  for (std::uint32_t m = 0; m < 2; ++m) {
    double total_served = 0, total_planned = 0;
    for (const auto& [k, v] : planned)
      if (k.first == m) {
        total_planned += v;
        total_served += served[k];
      }
    int glets = 0;
    for (const auto& [k, v] : planned)
      if (k.first == m) {
        ++glets;
        EXPECT_NEAR(served[k] / total_served, v / total_planned, 0.02) << "model " << m << " slot " << k.second;
      }
    split += glets > 1;
  }
  EXPECT_GE(split, 1) << "at 2,400 req/s some model should need several glets";
}

TEST(GletDataPlane, CoLocatedGletsSlowEachOtherWhileBothRun) {
  const auto run = plan_and_run("glet", 2400);
  // Slots that share a physical GPU.
  std::map<std::uint32_t, std::vector<std::uint32_t>> by_gpu;
  for (std::uint32_t s = 0; s < run.result.gpu_physical.size(); ++s)
    by_gpu[run.result.gpu_physical[s]].push_back(s);
  // Solo latency from the profile at the slot's glet size.
  const auto solo = [&](const TimelineSpan& s) {
    const auto share = GpuShare::parse(run.result.gpu_shares[s.gpu]);
    return run.scenario.profiles.get(run.result.models[s.model])
        .latency({"RTX2080Ti", *share, static_cast<int>(s.size), std::nullopt});
  };
  int slowed = 0, alone = 0;
  for (const auto& s : run.result.timeline) {
    const auto& peers = by_gpu[run.result.gpu_physical[s.gpu]];
    bool overlapped = false;
    for (const auto p : peers)
      if (p != s.gpu)
        for (const auto& o : run.result.timeline)
          if (o.gpu == p && o.start <= s.start && o.end > s.start) overlapped = true;
    const double ratio = (s.end - s.start).to_s() / solo(s).to_s();
    if (overlapped) {
      EXPECT_GT(ratio, 1.0) << "a batch that starts beside a running one is slowed";
      ++slowed;
    } else {
      EXPECT_NEAR(ratio, 1.0, 1e-6) << "a batch that starts alone runs its solo time";
      ++alone;
    }
    if (slowed + alone > 3000) break;
  }
  EXPECT_GT(slowed, 50);
  EXPECT_GT(alone, 50);
}

TEST(GletDataPlane, AModelThePlanDoesNotServeIsDroppedForWantOfCapacity) {
  const auto run = plan_and_run("glet-noint", 600, 1.0, R"(, {"model": "c", "slo_us": 50000})");
  const auto& models = run.result.metrics->models();
  ASSERT_EQ(models.size(), 3u);
  EXPECT_GT(models[2].arrivals, 0u);
  EXPECT_EQ(models[2].drops_by_reason[static_cast<std::size_t>(DropReason::NoCapacity)], models[2].arrivals);
  EXPECT_GE(models[0].attainment(), 0.99);
}
