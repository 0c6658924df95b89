// Shepherd, Nexus and squishy bin packing: the mechanisms each baseline is known for.
#include <gtest/gtest.h>

#include "engine/baselines/nexus_scheduler.h"
#include "engine/baselines/shepherd_scheduler.h"
#include "engine/baselines/squishy_bin_packing.h"
#include "engine/sim/simulator.h"
#include "model/io/document.h"
#include "tests/support/durations.h"
#include "tests/support/printers.h"

using namespace servescope;
using namespace servescope::engine;

namespace {

using ::servescope::test::ms;

std::vector<GpuSlot> gpus(int n) {
  std::vector<GpuSlot> out;
  out.reserve(static_cast<std::size_t>(n));
  for (int g = 0; g < n; ++g)
    out.push_back({static_cast<std::uint32_t>(g), "G" + std::to_string(g), "T", GpuShare::whole(), 0});
  return out;
}

struct Drops final : RunRecorder {
  int count = 0;
  void on_drop(const Request&, DropReason, Time) override { ++count; }
};

}  // namespace

TEST(SquishyBinPacking, SaturatedGpusThenResiduals) {
  // ResNet50 (α 1.053, β 5.072 ms, SLO 25 ms): 2ℓ(b) ≤ 25 gives b = 7 at 562.6 req/s per GPU.
  const SbpModel r50{"ResNet50", BatchLatency::linear(ms(1.053), ms(5.072), 64), ms(25), 2920};
  const auto plan = squishy_bin_packing({r50});
  ASSERT_EQ(plan.gpus.size(), 6u);
  for (int g = 0; g < 5; ++g) {
    EXPECT_TRUE(plan.gpus[static_cast<std::size_t>(g)].saturated);
    EXPECT_EQ(plan.gpus[static_cast<std::size_t>(g)].models.front().batch, 7);
  }
  EXPECT_FALSE(plan.gpus[5].saturated);
  EXPECT_NEAR(plan.gpus[5].models.front().rate_rps, 2920 - 5 * 7 / 0.012443, 0.5);
  // Eight GPUs available: the plan grows to use them all as headroom.
  const auto all = squishy_bin_packing({r50}, 8, true);
  EXPECT_LE(all.gpus.size(), 8u);
  EXPECT_GT(all.rate_scale, 1.2);
  // Two GPUs for the same load: rates scale down to fit.
  const auto two = squishy_bin_packing({r50}, 2);
  EXPECT_LE(two.gpus.size(), 2u);
  EXPECT_LT(two.rate_scale, 0.5);
}

TEST(SquishyBinPacking, ResidualsShareAGpuWhenEveryoneStillMeetsTheSlo) {
  const SbpModel a{"a", BatchLatency::linear(ms(1), ms(5), 64), ms(100), 50};
  const SbpModel b{"b", BatchLatency::linear(ms(1), ms(5), 64), ms(100), 50};
  const auto plan = squishy_bin_packing({a, b});
  ASSERT_EQ(plan.gpus.size(), 1u);
  const auto& g = plan.gpus.front();
  EXPECT_EQ(g.models.size(), 2u);
  EXPECT_LE(g.occupancy, 1.0);
  for (const auto& s : g.models)
    EXPECT_LE(g.duty_cycle + ms(1) * s.batch + ms(5), ms(100));
  // A model that cannot meet its SLO even alone is reported, not placed.
  const SbpModel slow{"slow", BatchLatency::linear(ms(10), ms(50), 64), ms(50), 10};
  EXPECT_EQ(squishy_bin_packing({slow}).unplaceable, std::vector<std::string>{"slow"});
  // ℓ(1) between SLO/2 and the SLO: no batch survives a full wait, but batch 1 is served anyway.
  const SbpModel tight{"tight", BatchLatency::linear(ms(10), ms(20), 64), ms(50), 60};
  const auto best_effort = squishy_bin_packing({tight});
  EXPECT_TRUE(best_effort.unplaceable.empty());
  EXPECT_EQ(best_effort.best_effort, std::vector<std::string>{"tight"});
  ASSERT_FALSE(best_effort.gpus.empty());
  for (const auto& gpu : best_effort.gpus)
    EXPECT_EQ(gpu.models.front().batch, 1);
}

// Independent check of an SBP plan: every GPU keeps up with what it is given (occupancy ≤ 1 and
// each batch covers a duty cycle's arrivals), every co-located model meets duty + ℓ(b) ≤ SLO
// (2ℓ(b) ≤ SLO on saturated GPUs; best-effort models are exempt), and each placed model's shares add up to its scaled
// rate.
void expect_sbp_plan_feasible(const std::vector<SbpModel>& models, const SbpPlan& plan) {
  std::vector<double> placed(models.size(), 0.0);
  for (std::size_t g = 0; g < plan.gpus.size(); ++g) {
    const auto& gpu = plan.gpus[g];
    Duration busy;
    for (const auto& share : gpu.models) {
      const auto& m = models[share.model];
      const auto l = m.latency.at(share.batch);
      busy += l;
      placed[share.model] += share.rate_rps;
      const bool best_effort = std::ranges::find(plan.best_effort, m.name) != plan.best_effort.end();
      if (gpu.saturated) {
        if (!best_effort) {
          EXPECT_LE(l + l, m.slo) << m.name << " on GPU " << g;
        }
        EXPECT_NEAR(share.rate_rps * l.to_s(), share.batch, 1e-6) << m.name << " on GPU " << g;
      } else {
        if (!best_effort) {
          EXPECT_LE(gpu.duty_cycle + l, m.slo + Duration::microseconds(1)) << m.name << " on GPU " << g;
        }
        EXPECT_GE(share.batch + 1e-6, share.rate_rps * gpu.duty_cycle.to_s())  // duty is rounded to 1 ns
            << m.name << " on GPU " << g;
      }
    }
    EXPECT_LE(busy, gpu.duty_cycle + Duration::microseconds(1)) << "GPU " << g << " is overloaded";
  }
  for (std::size_t i = 0; i < models.size(); ++i) {
    if (std::ranges::find(plan.unplaceable, models[i].name) != plan.unplaceable.end()) continue;
    EXPECT_NEAR(placed[i], models[i].rate_rps * plan.rate_scale, 1e-6 * models[i].rate_rps + 1e-9) << models[i].name;
  }
}

TEST(SquishyBinPacking, EveryPlanForTheSymphonyZoosIsFeasible) {
  for (const char* zoo : {"builtin:zoo/symphony-gtx1080ti.json", "builtin:zoo/symphony-a100.json"}) {
    const auto profiles = load_profiles(zoo);
    for (const double total_rps : {500.0, 3000.0, 20000.0}) {
      std::vector<SbpModel> models;
      for (const auto& p : profiles.models) {
        const auto& f = p.linear_fits.front();
        models.push_back({p.name, BatchLatency::linear(f.alpha, f.beta, 256), *p.default_slo,
                          total_rps / static_cast<double>(profiles.models.size())});
      }
      SCOPED_TRACE(std::string(zoo) + " at " + std::to_string(total_rps) + " req/s");
      expect_sbp_plan_feasible(models, squishy_bin_packing(models));
      const auto fitted = squishy_bin_packing(models, 64, true);
      EXPECT_LE(fitted.gpus.size(), 64u);
      expect_sbp_plan_feasible(models, fitted);
    }
  }
}

TEST(Shepherd, PreemptsWhenTheNewBatchIsThreeTimesLarger) {
  // ℓ(b) = b + 5 ms, SLO 100 ms, one GPU. R1 runs alone at 0; R2..R4 arrive at 1 ms. With R3 the
  // batch {R1, R2, R3} is 3 × the running batch: R1's run is preempted and the three run together.
  std::vector<ScheduledModel> models = {{"m", BatchLatency::linear(ms(1), ms(5), 64), ms(100)}};
  ShepherdScheduler shepherd(models, gpus(1), {});
  ListArrivals arrivals(
      {{ms(0), 0, 0, ms(100)}, {ms(1), 0, 0, ms(100)}, {ms(1), 0, 0, ms(100)}, {ms(1), 0, 0, ms(100)}});
  TimelineRecorder timeline;
  Simulator sim(1, ExecutionTimes::uniform({models[0].latency}, 1), arrivals, shepherd, timeline);
  sim.run();
  EXPECT_EQ(shepherd.preemptions(), 1u);
  const auto& spans = timeline.spans();
  ASSERT_EQ(spans.size(), 3u);
  EXPECT_TRUE(spans[0].preempted);
  EXPECT_EQ(spans[0].size, 1u);
  EXPECT_EQ(spans[0].end, ms(1));
  EXPECT_FALSE(spans[1].preempted);
  EXPECT_EQ(spans[1].size, 3u);
  EXPECT_EQ(spans[1].start, ms(1));
  EXPECT_EQ(spans[2].size, 1u);  // R4 after them
}

TEST(Shepherd, FreedGpuRunsTheLargestBatchAcrossModels) {
  std::vector<ScheduledModel> models = {{"small", BatchLatency::linear(ms(1), ms(5), 64), ms(100)},
                                        {"big", BatchLatency::linear(ms(1), ms(5), 64), ms(100)},
                                        {"first", BatchLatency::linear(Duration(), ms(10), 1), ms(100)}};
  ShepherdScheduler shepherd(models, gpus(1), {});
  // "first" occupies the GPU until 10; meanwhile small gets 1 request and big gets 4.
  std::vector<Arrival> list = {{ms(0), 2, 0, ms(100)}, {ms(1), 0, 0, ms(100)}};
  for (int i = 0; i < 4; ++i)
    list.push_back({ms(2), 1, 0, ms(100)});
  ListArrivals arrivals(list);
  TimelineRecorder timeline;
  Simulator sim(1, ExecutionTimes::uniform({models[0].latency, models[1].latency, models[2].latency}, 1), arrivals,
                shepherd, timeline);
  sim.run();
  ASSERT_GE(timeline.spans().size(), 3u);
  // Preemption of "first" (size 1) by big's batch of 4 ≥ 3: big runs first either way.
  bool big_before_small = false;
  for (const auto& s : timeline.spans()) {
    if (s.preempted) continue;
    if (s.model == 1) {
      big_before_small = true;
      break;
    }
    if (s.model == 0) break;
  }
  EXPECT_TRUE(big_before_small);
}

TEST(Nexus, RoutesByShareAndServesRoundRobin) {
  std::vector<ScheduledModel> models = {{"a", BatchLatency::linear(ms(1), ms(5), 64), ms(50)},
                                        {"b", BatchLatency::linear(ms(2), ms(4), 64), ms(60)}};
  NexusScheduler nexus(models, gpus(4), {200, 100}, {});
  std::vector<Arrival> list;
  list.reserve(600);
  for (int i = 0; i < 600; ++i)
    list.push_back({ms(5.0 * i / 3.0), static_cast<std::uint32_t>(i % 3 == 2), 0, i % 3 == 2 ? ms(60) : ms(50)});
  ListArrivals arrivals(list);
  Drops drops;
  Simulator sim(4, ExecutionTimes::uniform({models[0].latency, models[1].latency}, 4), arrivals, nexus, drops);
  sim.run();
  EXPECT_EQ(drops.count, 0);
  EXPECT_LE(nexus.plan().gpus.size(), 4u);
  EXPECT_EQ(sim.stats().arrivals, 600u);
}
