// gpu-let's runtime in the simulator (seed 003 §5.2; digest §5.3): plans meet their SLOs at the
// rate they were made for, requests spread over a model's glets in proportion to the planned
// rates, co-located glets slow each other down by the interference model while both run, and a
// model the plan does not serve is dropped for want of capacity.
#include <cmath>
#include <gtest/gtest.h>
#include <iostream>
#include <map>
#include <set>
#include <sstream>

#include "engine/analysis/run_series.h"
#include "engine/glet/glet_baselines.h"
#include "engine/glet/glet_scenario.h"
#include "engine/metrics/gpu_class_busy.h"
#include "engine/serving/run_result_json.h"
#include "engine/systems/glet/glet_options.h"
#include "engine/systems/scenario_simulation.h"
#include "model/io/document.h"
#include "tests/support/glet_fixture.h"
#include "tests/support/test_support.h"

using namespace servescope;
using namespace servescope::engine;

namespace {

struct Run {
  Scenario scenario;
  GletPlan plan;
  SimulationResult result;
};

Run plan_and_run(const std::string& system, double rate_rps, double load_factor = 1.0,
                 const std::string& extra_target = "") {
  test::TempDir dir;
  const auto scenario =
      std::get<Scenario>(load_document(dir.write("s.json", test::glet_scenario_json(rate_rps))).content);
  const auto in = glet_input(scenario, {});
  Run run;
  run.scenario = scenario;
  run.plan = plan_glet_system(system, in.models, in.latency, GletPlannerOptions{}, 1, in.gpu_limit);
  EXPECT_TRUE(run.plan.feasible) << run.plan.message;
  const auto run_scenario =
      extra_target.empty()
          ? scenario
          : std::get<Scenario>(
                load_document(dir.write("t.json", test::glet_scenario_json(rate_rps, extra_target))).content);
  SimulationSpec spec;
  spec.system = "glet";
  spec.edit_options<GletRunOptions>().plan = std::make_shared<const GletPlan>(run.plan);
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

TEST(GletServing, ReschedulesEveryPeriodAndReleasesGpusAfterTheReorganisationDelay) {
  // 2,400 req/s for 40 s, then 600 req/s: the period ending at 60 s sees the fall, and the smaller
  // schedule takes over 12.5 s later; the GPUs it no longer needs run nothing after that.
  test::TempDir dir;
  auto json = test::glet_scenario_json(2400);
  const std::string poisson = R"({"process": "poisson"})";
  json.replace(json.find(poisson), poisson.size(),
               R"({"process": "piecewise", "segments": [{"duration_s": 40, "rate_multiplier": 1},
                                                       {"duration_s": 40, "rate_multiplier": 0.25}]})");
  const auto scenario = std::get<Scenario>(load_document(dir.write("s.json", json)).content);
  SimulationSpec spec;
  spec.system = "glet-serving";
  spec.duration = Duration::seconds(80);
  spec.warmup = Duration::seconds(1);
  spec.timeline = true;
  const auto r = simulate(scenario, spec);
  for (const auto& g : r.reorganisations)
    std::cout << "decided " << g.decided.to_s() << " s, active " << g.active.to_s() << " s: " << g.how << " on "
              << g.gpus << " GPUs\n";
  ASSERT_GE(r.reorganisations.size(), 2u);
  const auto& first = r.reorganisations.front();
  EXPECT_EQ(first.active, Duration());
  const auto& fall = r.reorganisations[1];
  EXPECT_EQ(fall.decided, Duration::seconds(60));
  EXPECT_EQ(fall.active, Duration::seconds(60) + Duration::milliseconds(12500));
  EXPECT_EQ(fall.how, "full repartition");
  EXPECT_LT(fall.gpus, first.gpus);
  EXPECT_GE(r.metrics->total().attainment(), 0.99);
  // Slots are two per GPU; after the switch, GPUs from fall.gpus on are idle.
  for (const auto& s : r.timeline)
    if (s.start > fall.active + Duration::milliseconds(200)) {
      EXPECT_LT(r.gpu_physical[s.gpu], static_cast<std::uint32_t>(fall.gpus))
          << "a batch at " << s.start.to_ms() << " ms on a released GPU";
    }
  // Before the fall, the big schedule's GPUs all ran.
  std::set<std::uint32_t> busy_early;
  for (const auto& s : r.timeline)
    if (s.start < Duration::seconds(40)) busy_early.insert(r.gpu_physical[s.gpu]);
  EXPECT_EQ(static_cast<int>(busy_early.size()), first.gpus);
}

TEST(GletDataPlane, ApplicationRequestsCompleteWhenEverySinkHasFinished) {
  // decode (a 4 ms CPU step) → a → {b, c}: a request is on time only if both b and c finish
  // within 150 ms of its arrival; the modules run as requests of their models, which the plan
  // sizes for the application's rate with its share of the SLO.
  test::TempDir dir;
  auto json = test::glet_scenario_json(300);
  const std::string models_target = R"("targets": [{"model": "a", "slo_us": 30000}, {"model": "b", "slo_us": 80000}])";
  json.replace(json.find(models_target), models_target.size(), R"("targets": [{"application": "pipe"}])");
  const std::string workloads = R"("workloads":)";
  json.replace(json.find(workloads), workloads.size(),
               R"("applications": [{"name": "pipe", "slo_us": 150000,
                   "modules": [{"id": "decode", "kind": "cpu", "latency_us": 4000}, {"id": "a", "model": "a"},
                               {"id": "b", "model": "b"}, {"id": "c", "model": "c"}],
                   "edges": [["decode", "a"], ["a", "b"], ["a", "c"]]}],
                 "workloads":)");
  const auto scenario = std::get<Scenario>(load_document(dir.write("s.json", json)).content);
  const auto in = glet_input(scenario, {});
  ASSERT_EQ(in.models.size(), 3u);  // a, b and c, each at the application's 300 req/s
  for (const auto& m : in.models) {
    EXPECT_DOUBLE_EQ(m.rate_rps, 300) << m.profile->name;
    EXPECT_LT(m.slo, Duration::milliseconds(150)) << m.profile->name;  // a share of the whole
  }
  const auto plan = plan_glet_system("glet-noint", in.models, in.latency, GletPlannerOptions{}, 1, in.gpu_limit);
  ASSERT_TRUE(plan.feasible) << plan.message;
  SimulationSpec spec;
  spec.system = "glet";
  spec.edit_options<GletRunOptions>().plan = std::make_shared<const GletPlan>(plan);
  spec.duration = Duration::seconds(20);
  spec.warmup = Duration::seconds(1);
  const auto r = simulate(scenario, spec);
  const auto app = std::ranges::find(r.models, "app:pipe") - r.models.begin();
  ASSERT_LT(static_cast<std::size_t>(app), r.models.size());
  const auto& stats = r.metrics->models()[static_cast<std::size_t>(app)];
  EXPECT_GT(stats.arrivals, 5000u);
  EXPECT_GE(stats.attainment(), 0.99);
  EXPECT_EQ(stats.unfinished(), 0u);
  // Module requests are not outcomes of their own.
  for (std::size_t m = 0; m < r.models.size(); ++m)
    if (static_cast<std::ptrdiff_t>(m) != app) {
      EXPECT_EQ(r.metrics->models()[m].arrivals, 0u) << r.models[m];
      EXPECT_EQ(r.metrics->models()[m].completed, 0u) << r.models[m];
    }
  // A request waits at least for the CPU step, a and the slower of b and c at batch one.
  const auto solo = [&](const char* model) {
    return scenario.profiles.get(model).latency({"RTX2080Ti", GpuShare::whole(), 1, std::nullopt});
  };
  EXPECT_GE(r.metrics->total().latency.quantile(0.0),
            Duration::milliseconds(4) + solo("a") + std::min(solo("b"), solo("c")));

  // glet-serving plans the same application by itself (its modules at the application's rate).
  SimulationSpec served = spec;
  served.system = "glet-serving";
  const auto rs = simulate(scenario, served);
  ASSERT_FALSE(rs.reorganisations.empty());
  EXPECT_GE(rs.reorganisations.front().gpus, 1);
  const auto served_app = static_cast<std::size_t>(std::ranges::find(rs.models, "app:pipe") - rs.models.begin());
  EXPECT_GE(rs.metrics->models()[served_app].attainment(), 0.99);
  EXPECT_GT(rs.metrics->models()[served_app].arrivals, 5000u);

  // Far too tight an SLO: requests are dropped as a whole, once each.
  auto tight = json;
  tight.replace(tight.find("150000"), 6, "  9000");
  const auto strict = std::get<Scenario>(load_document(dir.write("t.json", tight)).content);
  const auto r2 = simulate(strict, spec);
  const auto app2 = static_cast<std::size_t>(std::ranges::find(r2.models, "app:pipe") - r2.models.begin());
  const auto& s2 = r2.metrics->models()[app2];
  EXPECT_GT(s2.dropped, 0u);
  EXPECT_EQ(s2.arrivals, s2.completed + s2.dropped + s2.unfinished());
  EXPECT_LE(s2.dropped, s2.arrivals);
}

// Busy time per class has one definition: the run's busy_by_type and the chart's series agree
// bin for bin over the measured window, on glets that share GPUs.
TEST(GletDataPlane, ChartsAndSummaryAgreeOnBusyTimePerClass) {
  const auto run = plan_and_run("glet", 1200, 0.8);
  const auto json = run_result_to_json(run.result, "glet");
  const auto series = run_series(json);
  ASSERT_FALSE(series.busy_by_type.empty());
  const double warmup_s = run.result.warmup.to_s(), end_s = run.result.duration.to_s();
  for (const auto& s : series.busy_by_type) {
    double sum = 0;
    int bins = 0;
    for (const auto& p : s.points)
      if (p.x > warmup_s && p.x < end_s) {
        sum += p.y;
        ++bins;
      }
    ASSERT_GT(bins, 0);
    EXPECT_NEAR(sum / bins, 100 * json["gpus"]["busy_by_type"][s.name].get<double>(), 1e-6) << s.name;
  }
}

// A slot of share s busy a fraction b uses s·b of one GPU; a class has its distinct physical GPUs
// (older run files, without them, count each slot as its share of one).
TEST(GpuClassBusy, SharesOverPhysicalGpus) {
  const std::vector<GpuSlotClass> slots{{"A", 0.6, 0u}, {"A", 1.0, 1u}, {"B", 0.5, 2u}, {"B", 0.5, 2u}};
  const auto busy = busy_by_class(slots, {0.5, 0.5, 1.0, 0.0});
  EXPECT_DOUBLE_EQ(busy.at("A"), (0.6 * 0.5 + 0.5) / 2);
  EXPECT_DOUBLE_EQ(busy.at("B"), 0.5);
  EXPECT_DOUBLE_EQ(class_capacity({{"A", 0.6, std::nullopt}, {"A", 1.0, std::nullopt}}).at("A"), 1.6);
}
