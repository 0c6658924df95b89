// gpu-let's planner on the digest's worked examples (seed 003, digest §7): toy model A with
// L(b, p) = 2 + β(p)·b ms, SLO 100 ms, safety 1, interference off, ε = 0 unless a case says so.
// Every layout is re-checked by the independent checker (tests/support/glet_layout_checker.h).
#include <gtest/gtest.h>
#include <map>

#include "engine/analysis/throughput_gain.h"
#include "engine/glet/elastic_partitioning.h"
#include "engine/glet/glet_plan_json.h"
#include "engine/glet/glet_scenario.h"
#include "engine/glet/rate_headroom.h"
#include "engine/glet/synthetic_profile.h"
#include "model/core/error.h"
#include "model/io/document.h"
#include "tests/support/glet_fixture.h"
#include "tests/support/glet_layout_checker.h"

using namespace servescope;
using namespace servescope::engine;

namespace {

using test::affine_glet_profile;
using test::toy_a_beta;

GletLatencyOptions toy_options() {
  return test::toy_latency_options();
}

struct ToyA {
  ModelProfile profile = affine_glet_profile("A", 2);
  GletLatency latency(double rate, GletLatencyOptions o = toy_options()) const {
    return GletLatency({{&profile, nullptr, rate, Duration::milliseconds(100), {}}}, std::move(o));
  }
};

void expect_valid(const GletLatency& lat, const GletPlan& plan, double epsilon = 1e-6) {
  EXPECT_EQ(test::check_glet_layout(lat, plan.layout, epsilon), std::vector<std::string>{});
}

}  // namespace

TEST(GletTC1, SaturatedTable) {
  const ToyA a;
  const auto lat = a.latency(100);
  const std::map<int, std::pair<int, double>> expected = {{20, {16, 320.0}}, {40, {32, 640.0}}, {50, {32, 761.9}},
                                                          {60, {32, 860.2}}, {80, {32, 941.2}}, {100, {32, 941.2}}};
  for (const auto& [p, e] : expected) {
    EXPECT_EQ(lat.saturated(0, p).batch, e.first) << p;
    EXPECT_NEAR(lat.saturated(0, p).throughput_rps, e.second, 0.05) << p;
  }
}

TEST(GletTC2, EfficientSizeUnderBothKneeRules) {
  const ToyA a;
  EXPECT_EQ(a.latency(100).efficient_size(0), 40);
  auto o = toy_options();
  o.knee = KneeRule::MaxEfficiency;  // 16.0 req/s per % at both 20 and 40: the larger wins
  EXPECT_EQ(a.latency(100, o).efficient_size(0), 40);
}

TEST(GletTC3TC4, ResidueBatchesAndRequiredSize) {
  const ToyA a;
  const auto lat = a.latency(200);
  EXPECT_EQ(lat.max_batch_residue(0, 20, 200), 12);  // d = 60, L = 38, 98 ≤ 100
  EXPECT_EQ(lat.max_batch_residue(0, 40, 200), 15);
  EXPECT_EQ(lat.required_size(0, 200), 20);  // our definition (the prototype's variant gives 40)
  EXPECT_EQ(lat.required_size(0, 360), 40);
  EXPECT_EQ(lat.max_batch_residue(0, 40, 360), 22);
  EXPECT_EQ(lat.required_size(0, 500), 40);
  EXPECT_EQ(lat.max_batch_residue(0, 40, 500), 28);
  EXPECT_EQ(lat.required_size(0, 860), 60);
  EXPECT_EQ(lat.max_batch_residue(0, 60, 860), 32);
  EXPECT_EQ(lat.required_size(0, 1000), std::nullopt);  // T_sat(100) = 941.2
}

TEST(GletTC5, FifteenHundredFitsOneGpuAsFortySixty) {
  const ToyA a;
  const auto lat = a.latency(1500);
  const auto plan = elastic_partitioning(lat, test::exact_planner_options(), 2);
  ASSERT_TRUE(plan.feasible) << plan.message;
  EXPECT_EQ(plan.layout.gpus_used(), 1);
  const auto& g0 = plan.layout.gpus[0].glets;
  ASSERT_EQ(g0.size(), 2u);
  EXPECT_EQ(g0[0].size_percent, 40);
  EXPECT_EQ(g0[0].mode, GletMode::Saturated);
  EXPECT_EQ(g0[0].models[0].batch, 32);
  EXPECT_NEAR(g0[0].models[0].rate_rps, 640, 1e-6);
  EXPECT_EQ(g0[1].size_percent, 60);
  EXPECT_EQ(g0[1].mode, GletMode::Residue);
  EXPECT_EQ(g0[1].models[0].batch, 32);
  EXPECT_NEAR(g0[1].duty_cycle.to_ms(), 37.21, 0.01);
  EXPECT_NEAR(g0[1].occupancy(), 0.99975, 1e-4);
  EXPECT_FALSE(plan.layout.gpus[1].used());
  expect_valid(lat, plan);
}

TEST(GletTC5, PrototypeOrderSplitsAFreshGpuInstead) {
  const ToyA a;
  const auto lat = a.latency(1500);
  auto o = test::exact_planner_options();
  o.fit = FitOrder::UnpartitionedFirst;
  const auto plan = elastic_partitioning(lat, o, 2);
  ASSERT_TRUE(plan.feasible);
  EXPECT_EQ(plan.layout.gpus_used(), 2);
  expect_valid(lat, plan);
}

TEST(GletTC6, TwentyFiveHundredNeedsTwoGpus) {
  const ToyA a;
  const auto lat = a.latency(2500);
  const auto one = elastic_partitioning(lat, test::exact_planner_options(), 1);
  EXPECT_FALSE(one.feasible);
  EXPECT_NEAR(one.unplaced_rps[0], 999.8, 0.1);
  EXPECT_NE(one.message.find("A: 1000 of 2500 req/s"), std::string::npos) << one.message;
  const auto two = elastic_partitioning(lat, test::exact_planner_options(), 2);
  ASSERT_TRUE(two.feasible) << two.message;
  const auto& g1 = two.layout.gpus[1].glets;
  ASSERT_EQ(g1.size(), 2u);
  EXPECT_EQ(g1[1].size_percent, 60);
  EXPECT_EQ(g1[1].mode, GletMode::Residue);
  EXPECT_EQ(g1[1].models[0].batch, 25);
  EXPECT_NEAR(g1[1].duty_cycle.to_ms(), 69.49, 0.01);
  EXPECT_NEAR(g1[1].occupancy(), 0.425, 0.001);
  EXPECT_NEAR(g1[1].models[0].rate_rps, 359.8, 0.1);
  expect_valid(lat, two);
}

TEST(GletTC7, ThirtyFiveHundredNeedsThreeGpusAndLeavesSixtyFree) {
  const ToyA a;
  const auto lat = a.latency(3500);
  EXPECT_FALSE(elastic_partitioning(lat, test::exact_planner_options(), 2).feasible);
  const auto three = elastic_partitioning(lat, test::exact_planner_options(), 3);
  ASSERT_TRUE(three.feasible);
  for (int g = 0; g < 2; ++g)
    for (const auto& glet : three.layout.gpus[static_cast<std::size_t>(g)].glets)
      EXPECT_EQ(glet.mode, GletMode::Saturated);
  const auto& g2 = three.layout.gpus[2].glets;
  ASSERT_EQ(g2.size(), 2u);
  EXPECT_EQ(g2[0].size_percent, 40);
  EXPECT_EQ(g2[0].models[0].batch, 27);
  EXPECT_NEAR(g2[0].duty_cycle.to_ms(), 54.05, 0.01);
  EXPECT_NEAR(g2[0].models[0].rate_rps, 499.6, 0.1);
  EXPECT_TRUE(g2[1].free());
  EXPECT_EQ(three.layout.total_size_percent(), 240);
  expect_valid(lat, three);
}

TEST(GletTC8, ScalingGrowsThenReleasesUnusedGpus) {
  const ToyA a;
  const auto busy = plan_glet(a.latency(3500), test::exact_planner_options(), 1, 4);
  ASSERT_TRUE(busy.feasible);
  EXPECT_EQ(busy.gpus, 3);
  EXPECT_EQ(busy.next_gpus, 3);
  const auto capped = plan_glet(a.latency(3500), test::exact_planner_options(), 1, 2);
  EXPECT_FALSE(capped.feasible);
  EXPECT_EQ(capped.next_gpus, 1);  // keep the previous schedule's N
  EXPECT_NE(capped.message.find("tried 1–2 GPUs"), std::string::npos) << capped.message;
  const auto quiet = plan_glet(a.latency(1500), test::exact_planner_options(), 3, 4);
  ASSERT_TRUE(quiet.feasible);
  EXPECT_EQ(quiet.gpus, 3);
  EXPECT_EQ(quiet.next_gpus, 1);
}

TEST(GletTC11, InterferenceAndSafetyShrinkTheBatch) {
  const ToyA a;
  const auto lat = a.latency(100);
  EXPECT_EQ(lat.max_batch_saturated(0, 40, 1.15), 27);
  EXPECT_NEAR(lat.effective(0, 27, 40, 1.15).to_ms(), 48.875, 1e-6);
  auto o = toy_options();
  o.latency_safety = 1.1;
  const auto safe = a.latency(100, o);
  EXPECT_EQ(safe.max_batch_saturated(0, 40), 28);
  EXPECT_NEAR(safe.saturated(0, 40).throughput_rps, 578.5, 0.1);
}

TEST(GletTC12, LinearInterferenceWithThe2080TiCoefficients) {
  // Nsight utilisation at batch 32 on the whole GPU (digest §4.7).
  const auto util = [](std::string model, double l2, double dram) {
    return UtilisationProfile{std::move(model), "RTX2080Ti", {{32, 0, l2, dram}}, ""};
  };
  const std::vector<UtilisationProfile> u = {util("resnet50", 0.2819, 0.6227), util("vgg16", 0.3022, 0.6115),
                                             util("lenet", 0.0697, 0.2540), util("quiet", 0.01, 0.01)};
  std::vector<ModelProfile> profiles;
  for (const auto& x : u)
    profiles.push_back(affine_glet_profile(x.model, 2));
  std::vector<GletModel> models;
  for (std::size_t i = 0; i < u.size(); ++i)
    models.push_back({&profiles[i], &u[i], 100, Duration::milliseconds(100), {}});
  auto o = toy_options();
  o.interference = InterferenceModel{"RTX2080Ti", 0.11291, 0.71596, 0.35487, 0.08820, 0.89537, "", ""};
  const GletLatency lat(models, o);
  EXPECT_NEAR(lat.interference(0, 32, 50, Neighbour{1, 32, 50}), 1.1569, 1e-3);
  EXPECT_NEAR(lat.interference(1, 32, 50, Neighbour{0, 32, 50}), 1.1493, 1e-3);
  EXPECT_NEAR(lat.interference(2, 32, 20, Neighbour{0, 32, 80}), 1.1204, 1e-3);
  EXPECT_NEAR(lat.interference(0, 32, 80, Neighbour{2, 32, 20}), 1.1121, 1e-3);
  // A slowdown below 1 is clamped: co-location never speeds a model up.
  EXPECT_DOUBLE_EQ(lat.interference(3, 32, 20, Neighbour{3, 32, 80}), 1.0);
  EXPECT_NEAR(lat.effective(0, 32, 50, std::vector<Neighbour>{{1, 32, 50}}).to_ms(), 42 * 1.1569, 0.05);
}

TEST(GletTC13, TimeSharingSearchesShorterDutyCycles) {
  const std::map<int, double> ones = {{20, 1.0}, {40, 1.0}, {50, 1.0}, {60, 1.0}, {80, 1.0}, {100, 1.0}};
  const auto x = affine_glet_profile("X", 5, 1, ones), y = affine_glet_profile("Y", 5, 1, ones);
  auto o = toy_options();
  o.sizes = {40, 60};  // only 40/60 splits, so both residues want a 40 % glet
  const GletLatency lat(
      {{&x, nullptr, 100, Duration::milliseconds(100), {}}, {&y, nullptr, 100, Duration::milliseconds(100), {}}}, o);
  EXPECT_EQ(lat.max_batch_residue(0, 40, 100), 8);  // alone: d = 80, occupancy 0.1625
  const auto plan = elastic_partitioning(lat, test::exact_planner_options(), 1);
  ASSERT_TRUE(plan.feasible) << plan.message;
  const Glet* shared = nullptr;
  for (const auto& g : plan.layout.gpus[0].glets)
    if (g.models.size() == 2) shared = &g;
  ASSERT_NE(shared, nullptr) << "X and Y should share one glet";
  EXPECT_EQ(shared->mode, GletMode::TimeShared);
  EXPECT_NEAR(shared->duty_cycle.to_ms(), 70, 1e-6);
  EXPECT_EQ(shared->models[0].batch, 7);
  EXPECT_EQ(shared->models[1].batch, 7);
  EXPECT_NEAR(shared->occupancy(), 0.343, 0.001);
  expect_valid(lat, plan);
  // Nexus's rule accepts the first point, d = 80 (d + L_i = 93 ≤ 100).
  auto nexus = test::exact_planner_options();
  nexus.merge = MergeRule::Nexus;
  const auto n = elastic_partitioning(lat, nexus, 1);
  ASSERT_TRUE(n.feasible);
  for (const auto& g : n.layout.gpus[0].glets)
    if (g.models.size() == 2) {
      EXPECT_NEAR(g.duty_cycle.to_ms(), 80, 1e-6);
    }
}

TEST(GletTC14, LeastRoomFirstTiesByIndexDescending) {
  const ToyA a;
  const auto b = affine_glet_profile("B", 2), c = affine_glet_profile("C", 2), d = affine_glet_profile("D", 2);
  const GletLatency lat({{&a.profile, nullptr, 1500, Duration::milliseconds(100), {}},
                         {&b, nullptr, 200, Duration::milliseconds(50), {}},
                         {&c, nullptr, 400, Duration::milliseconds(30), {}},
                         {&d, nullptr, 400, Duration::milliseconds(30), {}}},
                        toy_options());
  EXPECT_EQ(elastic_order(lat), (std::vector<int>{1, 3, 2, 0}));
}

TEST(GletPlanJson, RoundTripsAndNamesBadFields) {
  const ToyA a;
  const auto plan = elastic_partitioning(a.latency(2500), test::exact_planner_options(), 2);
  const auto json = glet_plan_to_json(plan, "toy");
  EXPECT_EQ(json.at("kind"), "glet-plan");
  EXPECT_EQ(json.at("gpus_used"), 2);
  const auto back = glet_plan_from_json(json, "plan.json");
  EXPECT_EQ(back.layout, plan.layout);
  EXPECT_EQ(back.models, plan.models);
  EXPECT_EQ(back.system, plan.system);
  EXPECT_EQ(back.feasible, plan.feasible);
  auto bad = json;
  bad["layout"][1]["glets"][1]["size_percent"] = 50;  // 40 + 50 is not a GPU
  try {
    glet_plan_from_json(bad, "plan.json");
    ADD_FAILURE() << "a 40 + 50 split was accepted";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("layout[1].glets"), std::string::npos) << e.what();
  }
  bad = json;
  bad["layout"][0]["glets"][0]["models"][0]["model"] = "Z";
  EXPECT_THROW(glet_plan_from_json(bad, "plan.json"), InputError);
}

TEST(GletSyntheticProfile, DigestResNet50Example) {
  // digest §4.1: ResNet50 (SLO 108 ms) gives w = 1.625, L(1, p ≥ 40) ≈ 6.6 ms, L(1, 20) ≈ 10.1 ms,
  // L(32, 100) = 54 ms and L(32, 50) = 106 ms.
  const auto p = synthetic_glet_profile("resnet50", "RTX2080Ti", Duration::milliseconds(108), {20, 40, 50, 100});
  const auto at = [&](int b, int size) {
    return p.latency({"RTX2080Ti", GpuShare::percent(size), b, std::nullopt}).to_ms();
  };
  EXPECT_NEAR(at(1, 40), 6.596, 1e-3);
  EXPECT_NEAR(at(1, 100), 6.596, 1e-3);
  EXPECT_NEAR(at(1, 20), 10.125, 1e-3);
  EXPECT_NEAR(at(32, 100), 54, 1e-6);
  EXPECT_NEAR(at(32, 50), 106, 1e-6);
  EXPECT_THROW(synthetic_glet_profile("x", "RTX2080Ti", Duration::milliseconds(4), {100}), QueryError);
}

TEST(GletTC16, HeadroomAndRescheduleTriggers) {
  EXPECT_DOUBLE_EQ(headroom_target_rps(100), 150);
  EXPECT_DOUBLE_EQ(headroom_target_rps(200), 240);
  // 240 → 250: +4.2 % and +10 req/s cross neither threshold; 253 (+13) does.
  EXPECT_EQ(reschedule_need(240, 250), RescheduleNeed::None);
  EXPECT_EQ(reschedule_need(240, 253), RescheduleNeed::Incremental);
  EXPECT_EQ(reschedule_need(240, 210), RescheduleNeed::Full);  // −12.5 %
  EXPECT_EQ(reschedule_need(240, 0), RescheduleNeed::Full);
  EXPECT_EQ(reschedule_need(240, 230), RescheduleNeed::None);  // −4.2 %
}

TEST(GletTC19, CostSavingFormula) {
  // The paper prints 53.5 % for (1 − 690/1650) × 100; the formula gives 58.2 %.
  EXPECT_NEAR(effective_cost_saving(690, 1650), 0.5818, 1e-4);
  EXPECT_NEAR(throughput_gain(690, 1650), 1.391, 1e-3);
}

TEST(GletFallbacks, ResiduesOfOneModelMergeToFreeAGlet) {
  // GPU 0 already holds two residues of A (200 req/s on 40 %, 200 req/s on 60 %) and nothing is
  // free, so A's 300 req/s more cannot be placed until the two residues, 400 req/s together and
  // within T_sat(40 %) = 640, move onto the 40 % glet and free the 60 % one (digest §4.6b.2).
  const ToyA a;
  const auto lat = a.latency(300);
  const auto residue = [&](int size, double rate) {
    const int b = lat.max_batch_residue(0, size, rate);
    const auto l = lat.effective(0, b, size);
    return Glet{size, {{0, b, rate, l, 1}}, GletMode::Residue, std::max(gather_time(b, rate), l)};
  };
  GletLayout start;
  start.gpus.push_back(GletGpu{{residue(40, 200), residue(60, 200)}});
  auto o = test::exact_planner_options();
  o.split = false;
  o.temporal_sharing = false;
  const auto plan = elastic_partitioning(lat, o, 1, start);
  const auto& glets = plan.layout.gpus[0].glets;
  ASSERT_EQ(glets.size(), 2u);
  ASSERT_EQ(glets[0].models.size(), 1u);
  EXPECT_NEAR(glets[0].models[0].rate_rps, 400, 1e-6);
  ASSERT_EQ(glets[1].models.size(), 1u);
  EXPECT_NEAR(glets[1].models[0].rate_rps, 300, 1e-6);
}

TEST(GletTC17, LatencyInterpolatesInBatchBetweenProfiledSizes) {
  // Profiled at b ∈ {1, 2, 4, 8, 16, 32} on 50 %, with L(8) = 20 and L(16) = 36 ms: L(12) = 28.
  ModelProfile p;
  p.name = "sparse";
  p.form = ProfileForm::Table;
  const std::vector<Duration> lat = {Duration::milliseconds(5),  Duration::milliseconds(8),
                                     Duration::milliseconds(12), Duration::milliseconds(20),
                                     Duration::milliseconds(36), Duration::milliseconds(68)};
  for (const int size : {20, 40, 50, 60, 80, 100})
    p.batch_tables.push_back({"RTX2080Ti", GpuShare::percent(size), BatchCurve({1, 2, 4, 8, 16, 32}, lat)});
  GletLatencyOptions o;
  o.gpu = "RTX2080Ti";
  o.latency_safety = 1;
  const GletLatency lat_model({{&p, nullptr, 100, Duration::milliseconds(200), {}}}, o);
  EXPECT_EQ(lat_model.solo(0, 12, 50), Duration::milliseconds(28));
  EXPECT_EQ(lat_model.solo(0, 1, 50), Duration::milliseconds(5));
  EXPECT_EQ(lat_model.solo(0, 32, 50), Duration::milliseconds(68));
  EXPECT_THROW(lat_model.solo(0, 33, 50), QueryError);  // outside the profile: no extrapolation
}

namespace servescope::engine {
namespace {

// On a cluster of several GPU types, gpu-let splits (when not told which) a type whose profiles
// have the most partition sizes for every model: the PPipe demo's estimated V100 (halves,
// thirds, quarters), not its more numerous P4s, profiled whole only.
TEST(GletScenario, SplitsATypeTheProfilesHavePartitionsOf) {
  const auto project = load_project("builtin:projects/ppipe-demo.json");
  const auto in = glet_input(project.scenario, {}, "");
  EXPECT_EQ(in.latency.gpu, "V100");
  EXPECT_EQ(glet_input(project.scenario, {}, "P4").latency.gpu, "P4");  // named: as told
}

}  // namespace
}  // namespace servescope::engine
