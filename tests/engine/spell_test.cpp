// Batch times in spells (issue 46; engine/dataplane/spell_draws.h, engine/analysis/spell_fit.h):
// the AR(1) process keeps every level uniform and makes close batches alike, with no spell it is
// exactly the independent stream, the fit finds the spell it was drawn with and none in
// independent draws, and the simulator draws a slot's batches through it. Seeded, virtual time.
#include <cmath>
#include <gtest/gtest.h>
#include <random>

#include "engine/analysis/spell_fit.h"
#include "engine/core/normal_scores.h"
#include "engine/core/unit_draw.h"
#include "engine/dataplane/batch_latency.h"
#include "engine/dataplane/spell_draws.h"
#include "engine/serving/run_result_json.h"
#include "engine/sim/simulator.h"
#include "engine/systems/scenario_simulation.h"
#include "tests/support/durations.h"
#include "tests/support/measured_profile.h"
#include "tests/support/resnet50_fixture.h"

namespace servescope::engine {
namespace {

using test::ms;

// The correlation of consecutive values' normal scores.
double lag1(const std::vector<double>& levels) {
  std::vector<Duration> as_times;
  for (const double u : levels)
    as_times.push_back(Duration::from_s(u));
  const auto z = normal_scores(as_times);
  double xy = 0, xx = 0, yy = 0;
  for (std::size_t i = 1; i < z.size(); ++i) {
    xy += z[i - 1] * z[i];
    xx += z[i - 1] * z[i - 1];
    yy += z[i] * z[i];
  }
  return xy / std::sqrt(xx * yy);
}

std::vector<double> draw(SpellDraws& d, std::uint32_t slot, Duration every, int n) {
  std::vector<double> out;
  for (int i = 0; i < n; ++i)
    out.push_back(d.next(slot, every * i));
  return out;
}

TEST(NormalScores, TheQuantileInvertsTheCdf) {
  EXPECT_NEAR(normal_quantile(0.975), 1.959963984540054, 1e-12);
  EXPECT_NEAR(normal_quantile(0.5), 0.0, 1e-15);
  // Up to 5: beyond, the CDF's double itself is too close to 1 to tell x apart.
  for (double x = -7; x <= 5; x += 0.25)
    EXPECT_NEAR(normal_quantile(normal_cdf(x)), x, 1e-9) << x;
  EXPECT_EQ(normal_quantile(0), -HUGE_VAL);
  EXPECT_EQ(normal_quantile(1), HUGE_VAL);
  // Equal values share their mean rank: no order among them.
  const auto z = normal_scores({ms(3), ms(1), ms(3), ms(2)});
  EXPECT_DOUBLE_EQ(z[0], z[2]);
  EXPECT_LT(z[1], z[3]);
  EXPECT_LT(z[3], z[0]);
}

TEST(SpellDraws, WithoutASpellItIsTheIndependentStream) {
  SpellDraws none(42, {}), zero(42, {Duration(), Duration()});
  std::mt19937_64 rng(42);
  for (int i = 0; i < 100; ++i) {
    const double u = unit_draw(rng);
    EXPECT_EQ(none.next(0, ms(i)), u);
    EXPECT_EQ(zero.next(static_cast<std::uint32_t>(i % 2), ms(i)), u);
  }
  EXPECT_FALSE(zero.any_spells());
}

TEST(SpellDraws, ASpellKeepsEveryLevelUniformAndMakesCloseBatchesAlike) {
  // A 100-ms spell: batches 10 ms apart correlate by exp(−0.1) ≈ 0.90, a second apart by e^−10.
  SpellDraws close(7, {ms(100)}), apart(7, {ms(100)});
  EXPECT_TRUE(close.any_spells());
  const auto near = draw(close, 0, ms(10), 20000);
  const auto far = draw(apart, 0, ms(1000), 20000);
  EXPECT_GT(lag1(near), 0.85);
  EXPECT_LT(std::abs(lag1(far)), 0.05);
  // Each level is still uniform: its mean and its lowest tenth, over 2,000 s of 100-ms spells.
  double sum = 0;
  int low = 0;
  for (const double u : near) {
    sum += u;
    low += u < 0.1;
  }
  EXPECT_NEAR(sum / 20000, 0.5, 0.03);
  EXPECT_NEAR(low / 20000.0, 0.1, 0.02);
}

TEST(SpellFit, FindsTheSpellItWasDrawnWithAndNoneInIndependentDraws) {
  SpellDraws spelled(3, {ms(50), ms(50)}), independent(3, {});
  std::vector<std::vector<std::pair<Time, double>>> a(2), b(2);
  for (int i = 0; i < 400; ++i)
    for (std::uint32_t slot = 0; slot < 2; ++slot) {
      const Time t = ms(20) * i + ms(7) * slot;
      a[slot].emplace_back(t, normal_quantile(spelled.next(slot, t)));
      b[slot].emplace_back(t, normal_quantile(independent.next(slot, t)));
    }
  const auto fit = fit_spell(a);
  EXPECT_EQ(fit.pairs, 798);
  EXPECT_GT(fit.spell, ms(35));
  EXPECT_LT(fit.spell, ms(70));
  EXPECT_NEAR(fit.lag1, std::exp(-20.0 / 50.0), 0.08);
  EXPECT_EQ(fit_spell(b).spell, Duration());
  EXPECT_EQ(fit_spell(a, 1000).spell, Duration()) << "too few pairs to fit";
}

// Each request alone, at its arrival, on GPU 0.
class EachAlone final : public DataPlane {
 public:
  std::string name() const override { return "each-alone"; }
  void start(DataPlaneContext& context) override { ctx_ = &context; }
  void on_request(const Request& r) override {
    Batch b;
    b.id = next_++;
    b.start = ctx_->clock.now();
    b.requests = {r};
    ctx_->executor.execute(std::move(b));
  }
  void on_timer(std::uint64_t) override {}
  void on_batch_done(const BatchDone&) override {}

 private:
  DataPlaneContext* ctx_ = nullptr;
  BatchId next_ = 1;
};

std::vector<double> simulated_batch_ms(std::vector<Duration> spells) {
  const auto profile =
      test::measured_one_block_profile("dev", 1, [](int, std::size_t level) { return test::kSkewedUs[level]; });
  ExecutionTimes times({{BatchLatency(profile, "dev", GpuShare::whole())}}, {0});
  std::vector<Arrival> arrivals;
  for (int i = 0; i < 3000; ++i)
    arrivals.push_back({ms(10) * i, 0, 0, ms(1000)});
  ListArrivals source(std::move(arrivals));
  EachAlone plane;
  TimelineRecorder timeline;
  Simulator sim(1, std::move(times), source, plane, timeline);
  sim.set_runtime_sampling(11, std::move(spells));
  sim.run();
  std::vector<double> out;
  for (const auto& s : timeline.spans_by_start())
    out.push_back((s.end - s.start).to_ms());
  return out;
}

TEST(SpellDraws, TheSimulatorDrawsASlotsBatchesInItsDevicesSpells) {
  const auto alike = simulated_batch_ms({ms(200)});
  const auto apart = simulated_batch_ms({});
  ASSERT_EQ(alike.size(), 3000u);
  EXPECT_GT(lag1(alike), 0.8);
  EXPECT_LT(std::abs(lag1(apart)), 0.1);
  // The same measured distribution either way: every batch within its p5 and p99.9.
  for (const double t : alike) {
    EXPECT_GE(t, 0.9);
    EXPECT_LE(t, 5.0);
  }
}

// Through simulate(): a measured profile whose device type has spells draws in them, and the run
// says so; without the spell, or with exact medians, it does not.
TEST(SpellDraws, ARunSaysTheSpellItsBatchesWereDrawnIn) {
  auto scenario = test::resnet50_on_8(2000);
  auto measured = test::measured_one_block_profile(
      "GTX1080Ti", 16, [](int b, std::size_t level) { return test::kSkewedUs[level] * (5 + b) / 5; });
  measured.name = "ResNet50";
  measured.default_slo = ms(25);
  scenario.profiles.models = {measured};
  ContentionModel spells;
  spells.gpu = "GTX1080Ti";
  spells.spell = ms(80);
  scenario.profiles.contention = {spells};
  SimulationSpec spec;
  spec.duration = Duration::seconds(2);
  spec.warmup = Duration::milliseconds(500);
  const auto spelled = simulate(scenario, spec);
  EXPECT_TRUE(spelled.sampled_runtime);
  EXPECT_EQ(spelled.runtime_spell, ms(80));
  EXPECT_DOUBLE_EQ(run_result_to_json(spelled, scenario.name)["config"]["runtime_spell_ms"].get<double>(), 80.0);
  spec.exact_runtime = true;
  EXPECT_EQ(simulate(scenario, spec).runtime_spell, Duration());
  spec.exact_runtime = false;
  scenario.profiles.contention.clear();
  const auto independent = simulate(scenario, spec);
  EXPECT_EQ(independent.runtime_spell, Duration());
  EXPECT_FALSE(run_result_to_json(independent, scenario.name)["config"].contains("runtime_spell_ms"));
}

}  // namespace
}  // namespace servescope::engine
