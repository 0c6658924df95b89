// PPipe's data plane on the digest's worked examples (§7 T6–T12): reservation tables in both
// modes, probe() and reserve() on the Figure 5 layout, the scheduler's batch, wait and drop
// decisions and its pipeline choice, then whole simulations of a planned fixture cluster.
// Time unit in the hand-made examples: 1 µs.
#include <functional>
#include <gtest/gtest.h>
#include <iostream>

#include "engine/analysis/load_sweep.h"
#include "engine/ppipe/pipeline_probe.h"
#include "engine/ppipe/reservation_scheduler.h"
#include "engine/ppipe/scenario_planning.h"
#include "engine/systems/ppipe/ppipe_options.h"
#include "engine/systems/scenario_simulation.h"
#include "model/core/error.h"
#include "model/io/document.h"
#include "tests/support/measured_profile.h"
#include "tests/support/pipeline_fixture.h"
#include "tests/support/test_support.h"

using namespace servescope;
using namespace servescope::engine;

namespace {

Time at_us(std::int64_t v) {
  return Duration::microseconds(v);
}

// Slots on servers; stages of (pool, fixed latency in µs, bytes per sample entering the stage).
// Links run at 8 Gbps, so 4,000 bytes take 4 µs.
struct StageSpec {
  std::vector<std::uint32_t> pool;
  std::int64_t alpha_us = 0, beta_us = 0;
  std::int64_t in_bytes = 0;
};
PipelineDeployment layout(const std::vector<std::uint32_t>& slot_server,
                          const std::vector<std::vector<StageSpec>>& pipes, const std::vector<int>& planned) {
  PipelineDeployment d;
  d.models = {"m"};
  std::uint32_t servers = 0;
  for (std::uint32_t g = 0; g < slot_server.size(); ++g) {
    d.slots.push_back(GpuSlot{g, "G" + std::to_string(g + 1), "T", GpuShare::whole(), slot_server[g]});
    d.slot_physical.push_back(g);
    servers = std::max(servers, slot_server[g] + 1);
  }
  d.servers.assign(servers, LinkSpeed{8, 8});
  d.model_pipelines.resize(1);
  d.kernels.resize(1);
  for (std::size_t p = 0; p < pipes.size(); ++p) {
    DeployedPipeline dp{0, planned[p], 1, {}};
    for (const auto& s : pipes[p])
      dp.stages.push_back(
          DeployedStage{{}, s.pool, BatchLatency::linear(at_us(s.alpha_us), at_us(s.beta_us), 8), s.in_bytes, 0});
    d.model_pipelines[0].push_back(static_cast<std::uint32_t>(p));
    d.pipelines.push_back(std::move(dp));
  }
  return d;
}

// Figure 5: G1 on n1 runs partition 1 (10 µs); G2 on n2 and G3 on n3 run partition 2 (8 µs);
// the hand-off takes 4 µs.
PipelineDeployment figure5() {
  return layout({0, 1, 2}, {{{{0}, 0, 10, 0}, {{1, 2}, 0, 8, 4000}}}, {1});
}

}  // namespace

TEST(PpipeT10, EarliestSlotInBothModes) {
  for (const auto mode : {ReservationMode::GapFilling, ReservationMode::Horizon}) {
    ReservationTable t(3, mode);
    t.reserve(0, at_us(5), at_us(5));
    t.reserve(0, at_us(20), at_us(10));
    const bool gaps = mode == ReservationMode::GapFilling;
    EXPECT_EQ(t.earliest_slot(0, at_us(0), at_us(5)), gaps ? at_us(0) : at_us(30));  // half-open: [0,5) fits
    EXPECT_EQ(t.earliest_slot(0, at_us(0), at_us(6)), gaps ? at_us(10) : at_us(30));
    EXPECT_EQ(t.earliest_slot(0, at_us(0), at_us(11)), at_us(30));
    EXPECT_EQ(t.earliest_slot(0, at_us(12), at_us(8)), gaps ? at_us(12) : at_us(30));
    t.reserve(1, at_us(0), at_us(10));
    t.reserve(2, at_us(5), at_us(10));
    const std::array<std::uint32_t, 2> both{1, 2};
    EXPECT_EQ(t.earliest_slot(both, at_us(0), at_us(3)), at_us(15));
  }
}

TEST(PpipeT10, FeedbackCorrectionShiftsOrReleases) {
  ReservationTable gaps(1, ReservationMode::GapFilling);
  const auto a = gaps.reserve(0, at_us(0), at_us(10));
  gaps.reserve(0, at_us(10), at_us(10));
  const auto far = gaps.reserve(0, at_us(40), at_us(5));
  gaps.correct(0, a, at_us(0), at_us(10), at_us(0), at_us(14));  // overran by 4: the next one moves, the far one stays
  EXPECT_EQ(gaps.earliest_slot(0, at_us(0), at_us(1)), at_us(24));
  EXPECT_EQ(gaps.earliest_slot(0, at_us(24), at_us(16)), at_us(24));
  EXPECT_EQ(gaps.busy_until(0), at_us(45));
  gaps.correct(0, far, at_us(40), at_us(5), at_us(40), at_us(42));  // early finish gives the tail back
  EXPECT_EQ(gaps.busy_until(0), at_us(42));
  gaps.forget_before(at_us(30));
  EXPECT_EQ(gaps.intervals(0), 1u);

  ReservationTable horizon(1, ReservationMode::Horizon);
  const auto h = horizon.reserve(0, at_us(0), at_us(10));
  horizon.reserve(0, at_us(10), at_us(10));
  horizon.correct(0, h, at_us(0), at_us(10), at_us(0), at_us(13));
  EXPECT_EQ(horizon.busy_until(0), at_us(23));
  horizon.correct(0, 0, at_us(13), at_us(10), at_us(13), at_us(20));  // the last one ended early
  EXPECT_EQ(horizon.busy_until(0), at_us(20));
}

// Batches that each run longer than reserved, back to back: each one's overrun stays in the
// table, so the resource is known busy until the last really ends (a correction that looked for
// a pushed reservation where it was made lost every overrun after the first).
TEST(PpipeT10, OverrunsBuildUpBatchAfterBatch) {
  ReservationTable t(1, ReservationMode::GapFilling);
  std::vector<ReservationTable::ReservationId> ids;
  for (int i = 0; i < 4; ++i)
    ids.push_back(t.reserve(0, at_us(10 * i), at_us(10)));
  // Each really takes 15: the k-th runs [15k, 15k + 15).
  for (int i = 0; i < 4; ++i) {
    t.correct(0, ids[static_cast<std::size_t>(i)], at_us(10 * i), at_us(10), at_us(15 * i), at_us(15 * i + 15));
    // What is still reserved sits behind the real end, 10 each.
    EXPECT_EQ(t.busy_until(0), at_us(15 * i + 15 + 10 * (3 - i))) << "after batch " << i;
  }
  EXPECT_EQ(t.earliest_slot(0, at_us(0), at_us(1)), at_us(60));
}

TEST(PpipeT6T7, ProbeFollowsTheEarliestFinishAndQueuesAfterReserve) {
  for (const auto mode : {ReservationMode::Horizon, ReservationMode::GapFilling}) {
    const auto d = figure5();
    ReservationTable t(PipelineProber::resource_count(d), mode);
    PipelineProber prober(d, t);
    t.reserve(2, at_us(0), at_us(25));  // G3 busy on [0, 25)
    auto o = prober.probe(0, 1, at_us(0));
    EXPECT_EQ(o.stage[0].gpu, 0u);
    EXPECT_EQ(o.stage[1].gpu, 1u);
    EXPECT_EQ(o.finish, at_us(22));
    EXPECT_EQ(o.wait, Duration());
    EXPECT_EQ(o.stage[0].start, at_us(0));
    EXPECT_EQ(o.stage[1].link_start, at_us(10));
    EXPECT_EQ(o.stage[1].link, at_us(4));
    EXPECT_EQ(o.stage[1].start, at_us(14));
    prober.reserve(o);
    EXPECT_EQ(t.busy_until(prober.uplink(0)), at_us(14));
    EXPECT_EQ(t.busy_until(prober.downlink(1)), at_us(14));
    // T7: the same probe again queues behind the first batch.
    const auto again = prober.probe(0, 1, at_us(0));
    EXPECT_EQ(again.stage[0].start, at_us(10));
    EXPECT_EQ(again.stage[1].gpu, 1u);
    EXPECT_EQ(again.finish, at_us(32));
    EXPECT_EQ(again.wait, at_us(10));
  }
}

// Issue 49: the artifact's uplink-aware pick. Stage 1 may run on G1 (server 1, free) or G2 (server
// 2, busy until 5 µs); G1's uplink is held until 50 µs. By inference end G1 wins and its feature
// map waits for the link; avoiding the busy uplink picks G2, whose map leaves at once.
TEST(PpipeT6T7, AvoidingABusyUplinkPicksTheVgpuWhoseMapLeavesFirst) {
  const auto d = layout({0, 1, 2}, {{{{0, 1}, 0, 10, 0}, {{2}, 0, 8, 4000}}}, {1});
  for (const bool avoid : {false, true}) {
    SCOPED_TRACE(avoid ? "avoiding busy uplinks" : "by inference end");
    ReservationTable t(PipelineProber::resource_count(d), ReservationMode::GapFilling);
    ProbeOptions options;
    options.avoid_jammed_uplink = avoid;
    PipelineProber prober(d, t, options);
    t.reserve(1, at_us(0), at_us(5));                  // G2 busy on [0, 5)
    t.reserve(prober.uplink(0), at_us(0), at_us(50));  // server 1's uplink held until 50 µs
    const auto o = prober.probe(0, 1, at_us(0));
    EXPECT_EQ(o.stage[0].gpu, avoid ? 1u : 0u);
    EXPECT_EQ(o.stage[1].link_start, avoid ? at_us(15) : at_us(50));
    EXPECT_EQ(o.finish, avoid ? at_us(27) : at_us(62));
  }
}

// The plane's learned pace (slot_pace.h): a vGPU whose batches take 2.5× their profile is
// reserved at that, so the probe prefers an idle vGPU of the pool that really runs faster.
TEST(PpipeT6T7, ProbeReservesAtEachVgpusLearnedPace) {
  const auto d = layout({0, 0}, {{{{0, 1}, 0, 10, 0}}}, {1});
  ReservationTable t(PipelineProber::resource_count(d), ReservationMode::GapFilling);
  PipelineProber prober(d, t);
  EXPECT_EQ(prober.probe(0, 1, at_us(0)).stage[0].gpu, 0u);
  for (int i = 0; i < SlotPace::kSettle; ++i)
    prober.pace().observe(0, 1, at_us(10), at_us(25));
  auto o = prober.probe(0, 1, at_us(0));
  EXPECT_EQ(o.stage[0].gpu, 1u);
  EXPECT_EQ(o.finish, at_us(10));
  t.reserve(1, at_us(0), at_us(30));
  o = prober.probe(0, 1, at_us(0));
  EXPECT_EQ(o.stage[0].gpu, 0u);
  EXPECT_EQ(o.stage[0].run, at_us(25));
  EXPECT_EQ(o.stage[0].profiled, at_us(10));
  EXPECT_EQ(o.finish, at_us(25));
  EXPECT_EQ(o.wait, Duration());
  prober.reserve(o);
  EXPECT_EQ(t.busy_until(0), at_us(25));
}

TEST(PpipeT8, ProbeAvoidsABusyDownlink) {
  const auto d = figure5();
  ReservationTable t(PipelineProber::resource_count(d), ReservationMode::Horizon);
  PipelineProber prober(d, t);
  t.reserve(2, at_us(0), at_us(20));                   // G3 busy on [0, 20)
  t.reserve(prober.downlink(1), at_us(8), at_us(10));  // n2's downlink busy on [8, 18)
  const auto o = prober.probe(0, 1, at_us(0));
  EXPECT_EQ(o.stage[1].gpu, 2u);
  EXPECT_EQ(o.finish, at_us(28));
  // With n2's downlink free, G2 wins at 22.
  ReservationTable free_links(PipelineProber::resource_count(d), ReservationMode::Horizon);
  PipelineProber p2(d, free_links);
  free_links.reserve(2, at_us(0), at_us(20));
  EXPECT_EQ(p2.probe(0, 1, at_us(0)).finish, at_us(22));
}

TEST(PpipeT9, VgpusOfOneServerShareItsNic) {
  // vA and vB (slots 1 and 2) are two halves of one GPU on server 1; partition 2 runs on vB.
  const auto d = layout({0, 1, 1}, {{{{0}, 0, 10, 0}, {{2}, 0, 8, 4000}}}, {1});
  ReservationTable t(PipelineProber::resource_count(d), ReservationMode::GapFilling);
  PipelineProber prober(d, t);
  t.reserve(prober.downlink(1), at_us(10), at_us(4));  // vA's incoming transfer
  const auto o = prober.probe(0, 1, at_us(0));
  EXPECT_EQ(o.stage[1].gpu, 2u);
  EXPECT_EQ(o.stage[1].link_start, at_us(14));
  EXPECT_EQ(o.finish, at_us(26));
}

namespace {

// A scripted world for the scheduler: a clock the test moves, timers it can read, and the
// batches and drops the scheduler produced.
struct Scripted final : Clock, Executor, OutcomeSink {
  Time t;
  std::vector<std::uint64_t> tokens;
  std::vector<std::optional<Time>> armed;
  std::vector<Batch> batches;
  std::vector<RequestId> drops;
  DataPlaneContext ctx{*this, *this, *this};

  Time now() const override { return t; }
  TimerId create_timer(std::uint64_t token) override {
    tokens.push_back(token);
    armed.emplace_back();
    return static_cast<TimerId>(tokens.size() - 1);
  }
  void arm(TimerId timer, Time at) override { armed[timer] = at; }
  void disarm(TimerId timer) override { armed[timer].reset(); }
  void execute(Batch batch) override { batches.push_back(std::move(batch)); }
  bool preempt(BatchId, std::uint32_t) override { return false; }
  void transfer(Transfer sent) override { transfers.push_back(std::move(sent)); }
  void dropped(const Request& r, DropReason why) override {
    drops.push_back(r.id);
    reasons.push_back(why);
  }
  std::vector<Transfer> transfers;
  std::vector<DropReason> reasons;
  void completed(const Request&, Time, Time) override {}
};

Request req(RequestId id, Time deadline) {
  return Request{id, 0, 0, Time(), deadline};
}

// The digest's worked examples follow the paper's Algorithm 1: no first look (the artifact's
// admission rule, on by default since issue 49).
ReservationSchedulerOptions paper_rules() {
  ReservationSchedulerOptions o;
  o.first_look_min_fraction = 0;
  return o;
}

}  // namespace

TEST(PpipeT11, BatchWaitAndDropDecisions) {
  // One pipeline, planned batch 4, work(b) = 10 + 5b, all idle.
  const auto d = layout({0}, {{{{0}, 5, 10, 0}}}, {4});
  for (const auto rule : {WakeRule::LatestFeasible, WakeRule::NextBatchInfeasible}) {
    auto o = paper_rules();
    o.wake = rule;
    ReservationScheduler s(d, {at_us(28)}, o);
    Scripted w;
    s.start(w.ctx);
    // Two queued requests, head deadline 28: batch 4 would end at 30, 3 at 25, so the target is 3
    // and the scheduler waits: paper until 28 − finish(2) = 8, artifact until 28 − work(3) + 1.
    s.on_request(req(1, at_us(28)));
    s.on_request(req(2, at_us(28)));
    EXPECT_TRUE(w.batches.empty());
    ASSERT_TRUE(w.armed[0]);
    // (The digest's "+ 1" is one tick: 1 µs there, 1 ns here.)
    EXPECT_EQ(*w.armed[0], rule == WakeRule::LatestFeasible ? at_us(8) : at_us(3) + Duration::nanoseconds(1));
    // A third request fills the batch of 3: reserve and dispatch at once.
    s.on_request(req(3, at_us(28)));
    ASSERT_EQ(w.batches.size(), 1u);
    EXPECT_EQ(w.batches[0].requests.size(), 3u);
    EXPECT_FALSE(w.armed[0]);
    EXPECT_EQ(s.table().busy_until(0), at_us(25));
  }
  // Five queued at once (arrivals before the scheduler runs again): 3 go, the other 2 are
  // evaluated next against a GPU busy until 25 and, with deadline 28, dropped.
  ReservationScheduler s(d, {at_us(28)}, paper_rules());
  Scripted w;
  s.start(w.ctx);
  for (RequestId id = 1; id <= 5; ++id)
    s.on_request(req(id, at_us(28)));
  ASSERT_EQ(w.batches.size(), 1u);
  EXPECT_EQ(w.batches[0].requests.size(), 3u);
  EXPECT_EQ(w.drops, (std::vector<RequestId>{4, 5}));
  // Drop case: deadline 14 cannot be met even by a batch of one (15).
  ReservationScheduler tight(d, {at_us(14)}, paper_rules());
  Scripted w2;
  tight.start(w2.ctx);
  tight.on_request(req(9, at_us(14)));
  EXPECT_EQ(w2.drops, (std::vector<RequestId>{9}));
  EXPECT_TRUE(w2.batches.empty());
}

TEST(PpipeT11, WakingWithNoNewArrivalsSendsTheQueue) {
  const auto d = layout({0}, {{{{0}, 5, 10, 0}}}, {4});
  ReservationScheduler s(d, {at_us(28)}, paper_rules());
  Scripted w;
  s.start(w.ctx);
  s.on_request(req(1, at_us(28)));
  s.on_request(req(2, at_us(28)));
  w.t = *w.armed[0];  // 8: a batch of 3 would now end at 33, of 2 at 28
  s.on_timer(w.tokens[0]);
  ASSERT_EQ(w.batches.size(), 1u);
  EXPECT_EQ(w.batches[0].requests.size(), 2u);
  EXPECT_EQ(w.batches[0].start, at_us(8));
}

// Live mode with every vGPU of the pipeline out of planning (their workers late or lost): no
// pipeline makes an offer, and the head is dropped without sizing a batch against one (a batch
// of 0 once read past the start of the latency table).
TEST(PpipeT11, EveryVgpuGoneDropsTheHeadWithoutAnOffer) {
  auto d = layout({0}, {{{{0}, 5, 10, 0}}}, {4});
  // A measured table (from batch 1), as live deployments have, not a linear fit defined at 0.
  const auto profile = test::measured_one_block_profile("T", 4, [](int b, std::size_t) { return 10 + 5 * b; });
  d.pipelines[0].stages[0].latency = BatchLatency(profile, "T", profile.block_tables.front().share);
  for (const double fraction : {0.0, 0.75}) {
    ReservationSchedulerOptions o;
    o.behind_min_fraction = fraction;
    o.first_look_min_fraction = 0.5;
    ReservationScheduler s(d, {at_us(100)}, o);
    Scripted w;
    s.start(w.ctx);
    s.set_gpu_available(0, false);
    s.on_request(req(1, at_us(100)));
    EXPECT_EQ(w.drops, (std::vector<RequestId>{1}));
    EXPECT_TRUE(w.batches.empty());
  }
}

// Live mode: a vGPU's worker goes while a flight is on its way to it. The flight ends at once, its
// requests dropped as worker-lost, instead of being handed to nobody when its stage is due; while
// the worker was only late it kept the flight, and a flight that does not need that vGPU flies on.
TEST(PpipeT11, AFlightBoundForALostVgpuEndsWhenItsWorkerGoesNotWhenItIsLate) {
  const auto d = figure5();
  for (const bool lose_the_flights_own : {true, false}) {
    ReservationScheduler s(d, {at_us(100)});
    Scripted w;
    s.start(w.ctx);
    s.on_request(req(1, at_us(100)));
    // Stage 1 runs on G1 at 0–10, the hand-off at 10–14, stage 2 on G2 (the earliest of its pool)
    // at 14–22.
    ASSERT_EQ(w.batches.size(), 1u);
    ASSERT_EQ(s.table().busy_until(1), at_us(22));
    w.t = at_us(5);
    // Late (out of planning) first: a late worker still runs what was reserved on it.
    s.set_gpu_available(lose_the_flights_own ? 1 : 2, false);
    EXPECT_TRUE(w.drops.empty());
    s.on_gpu_lost(lose_the_flights_own ? 1 : 2);
    w.t = at_us(10);
    s.on_batch_done(BatchDone{w.batches[0].id, 0, 0, 1, Time(), at_us(10)});
    if (lose_the_flights_own) {
      EXPECT_EQ(w.drops, (std::vector<RequestId>{1}));
      EXPECT_EQ(w.reasons, (std::vector<DropReason>{DropReason::WorkerLost}));
      EXPECT_TRUE(w.transfers.empty()) << "nothing sent on to the gone vGPU";
    } else {
      EXPECT_TRUE(w.drops.empty());
      ASSERT_EQ(w.transfers.size(), 1u);
      EXPECT_EQ(w.transfers[0].to_gpu, 1u);
    }
    // Either way, the next request is planned around the gone vGPU.
    s.on_request(req(2, at_us(100)));
    EXPECT_EQ(w.drops.size(), lose_the_flights_own ? 1u : 0u);
  }
}

TEST(PpipeT12, PipelineChoiceByWaitWithTheLateSinglePenalty) {
  // Pipeline A (planned 2) on G1, busy until 7; pipeline B (planned 1) on G2, busy until 3.
  for (const bool late_b : {false, true}) {
    const std::int64_t b_latency = late_b ? 30 : 5;
    const auto d = layout({0, 1}, {{{{0}, 0, 5, 0}}, {{{1}, 0, b_latency, 0}}}, {2, 1});
    ReservationScheduler s(d, {at_us(28)});
    Scripted w;
    s.start(w.ctx);
    s.table().reserve(0, at_us(0), at_us(7));
    s.table().reserve(1, at_us(0), at_us(3));
    s.on_request(req(1, at_us(28)));
    if (!late_b) {
      // B waits 3 < A's 7: B, whose batch is 1, is reserved at once and handed to G2 when its
      // reservation starts.
      EXPECT_TRUE(w.batches.empty());
      ASSERT_TRUE(w.armed[1]);
      EXPECT_EQ(*w.armed[1], at_us(3));
      w.t = at_us(3);
      s.on_timer(w.tokens[1]);
      ASSERT_EQ(w.batches.size(), 1u);
      EXPECT_EQ(w.batches[0].gpu, 1u);
    } else {
      // B's batch of one ends at 33 > 28, so it scores 3 + SLO and A is chosen: A's batch of 2
      // fits, one request is queued, so the scheduler waits instead of dropping.
      EXPECT_TRUE(w.batches.empty());
      EXPECT_TRUE(w.drops.empty());
      EXPECT_TRUE(w.armed[0]);
    }
  }
}

namespace {

struct FixtureRun {
  SimulationResult result;
  PipelinePlan plan;
};

FixtureRun run_fixture(const std::string& planner, const std::string& data_plane, double load_factor,
                       ReservationMode mode = ReservationMode::Horizon, std::uint64_t seed = 3,
                       const std::function<void(SimulationSpec&)>& adjust = {},
                       const std::string& scenario_json = test::kPipelineScenarioJson) {
  test::TempDir dir;
  const auto scenario = load_scenario(dir.write("s.json", scenario_json));
  FixtureRun out;
  out.plan = plan_pipelines(planner, planning_input(scenario, {"seg-poisson"}), PpipeOptions{});
  SimulationSpec spec;
  spec.system = data_plane;
  spec.workloads = {"seg-poisson"};
  spec.edit_options<PipelineRunOptions>().plan = std::make_shared<const PipelinePlan>(out.plan);
  spec.load_factor = load_factor;
  spec.duration = Duration::seconds(20);
  spec.warmup = Duration::seconds(1);
  spec.seed = seed;
  spec.timeline = true;
  spec.edit_options<PipelineRunOptions>().reservation.mode = mode;
  if (adjust) adjust(spec);
  out.result = simulate(scenario, spec);
  return out;
}

double attainment(const SimulationResult& r) {
  return r.metrics->total().attainment();
}

}  // namespace

TEST(PpipeDataPlane, PlannedPipelinesMeetTheirSloAtHalfLoadInEveryMode) {
  for (const auto mode : {ReservationMode::Horizon, ReservationMode::GapFilling}) {
    const auto run = run_fixture("ppipe", "reservation", 0.5, mode);
    const auto& r = run.result;
    EXPECT_GE(attainment(r), 0.99);
    EXPECT_EQ(r.plan_system, "ppipe");
    EXPECT_DOUBLE_EQ(r.nominal_capacity_rps, run.plan.total_throughput_rps());
    // Every request of a completed pipeline batch went through every stage, and each transfer
    // between stages took the link for bytes·8/6 Gbps.
    EXPECT_FALSE(r.transfers.empty());
    for (const auto& t : r.transfers)
      EXPECT_GT(t.end, t.start);
    EXPECT_GT(busy_by_gpu_type(r).at("P4"), 0.05);
    EXPECT_GE(r.dispatches, 1u);
    EXPECT_LE(static_cast<double>(r.probes) / static_cast<double>(r.dispatches), 4.0);
    // No two inferences overlap on one vGPU: reservations are honoured.
    std::map<std::uint32_t, Time> gpu_free;
    for (const auto& span : r.timeline) {
      EXPECT_GE(span.start, gpu_free[span.gpu]) << "vGPU " << span.gpu;
      gpu_free[span.gpu] = span.end;
    }
  }
}

// Offered 1.6× the plan's capacity, the paper's rule saves each late head with a smaller batch,
// which holds the vGPUs longer per request, so the plane falls further behind and serves less
// the more it is offered. Dropping the head instead while the pipeline is booked ahead keeps
// batches near the planned size and the goodput near the plan's capacity.
TEST(PpipeDataPlane, AnOverloadedPipelineKeepsItsBatchesAndItsCapacity) {
  const auto with_floor = [](double fraction) {
    // Without the first look, which on its own (the default) keeps these batches as well.
    return [fraction](SimulationSpec& s) {
      s.edit_options<PipelineRunOptions>().reservation.behind_min_fraction = fraction;
      s.edit_options<PipelineRunOptions>().reservation.first_look_min_fraction = 0;
    };
  };
  // A looser SLO than the fixture's, so that the plan batches.
  std::string scenario = test::kPipelineScenarioJson;
  scenario.replace(scenario.find("22500"), 5, "90000");
  const auto run = [&](double load, double fraction) {
    return run_fixture("ppipe", "reservation", load, ReservationMode::GapFilling, 3, with_floor(fraction), scenario);
  };
  const auto paper = run(1.6, 0);
  const auto kept = run(1.6, 0.75);
  ASSERT_GE(kept.plan.pipelines.front().batch, 4);
  const double seconds = 19;  // 20 simulated, 1 of warm-up
  const auto goodput = [&](const FixtureRun& r) {
    return static_cast<double>(r.result.metrics->total().on_time) / seconds;
  };
  const auto mean_batch = [](const FixtureRun& r) {
    double requests = 0;
    for (const auto& span : r.result.timeline)
      requests += span.size;
    return requests / static_cast<double>(r.result.timeline.size());
  };
  const double capacity = kept.plan.total_throughput_rps();
  std::cout << "1.6x capacity " << capacity << " req/s: goodput paper rule " << goodput(paper) << " (mean batch "
            << mean_batch(paper) << "), kept batches " << goodput(kept) << " (" << mean_batch(kept) << ")\n";
  EXPECT_GT(goodput(kept), goodput(paper));
  EXPECT_GT(mean_batch(kept), mean_batch(paper));
  EXPECT_GE(goodput(kept), 0.9 * capacity);
  // The same options at half load change nothing: the pipeline is never booked ahead with a short
  // queue. (Every figure in this test is the simulator's, in virtual time from a fixed seed: the
  // same on any machine under any load.)
  const auto half_paper = run(0.5, 0);
  const auto half_kept = run(0.5, 0.75);
  EXPECT_GE(attainment(half_kept.result), 0.99);
  EXPECT_EQ(half_kept.result.metrics->total().on_time, half_paper.result.metrics->total().on_time);
}

TEST(PpipeDataPlane, SameSeedSameRunAndReservationNoWorseThanReactive) {
  const auto a = run_fixture("ppipe", "reservation", 0.8);
  const auto b = run_fixture("ppipe", "reservation", 0.8);
  EXPECT_EQ(a.result.metrics->total().on_time, b.result.metrics->total().on_time);
  EXPECT_EQ(a.result.sim.events, b.result.sim.events);
  const auto reactive = run_fixture("ppipe", "reactive", 0.8);
  EXPECT_GE(attainment(a.result), attainment(reactive.result) - 0.005);
  // NP cannot place the model on a P4 at all: the P4s stay idle.
  const auto np = run_fixture("np", "reservation", 0.5);
  EXPECT_DOUBLE_EQ(busy_by_gpu_type(np.result).at("P4"), 0.0);
  EXPECT_GE(attainment(np.result), 0.99);
}

TEST(PpipeDataPlane, RuntimeJitterIsBoundedSeededAndCorrectedByFeedback) {
  const auto with = [](double jitter, bool feedback) {
    return [jitter, feedback](SimulationSpec& s) {
      s.runtime_jitter = jitter;
      s.edit_options<PipelineRunOptions>().reservation.feedback = feedback;
    };
  };
  const auto exact = run_fixture("ppipe", "reservation", 0.8, ReservationMode::Horizon, 3, with(0, true));
  const auto jittered = run_fixture("ppipe", "reservation", 0.8, ReservationMode::Horizon, 3, with(0.2, true));
  // Without jitter a (vGPU, batch size) always takes its profiled time; with 20 % every batch
  // lands in [0.8, 1.2] of it, and the times spread.
  std::map<std::pair<std::uint32_t, std::uint32_t>, Duration> profiled;
  for (const auto& s : exact.result.timeline) {
    const auto [it, fresh] = profiled.emplace(std::pair{s.gpu, s.size}, s.end - s.start);
    EXPECT_EQ(it->second, s.end - s.start);
  }
  double sum_ratio = 0, lowest = 2, highest = 0;
  int n = 0;
  for (const auto& s : jittered.result.timeline) {
    const auto it = profiled.find({s.gpu, s.size});
    if (it == profiled.end()) continue;
    const double ratio = (s.end - s.start).to_s() / it->second.to_s();
    lowest = std::min(lowest, ratio);
    highest = std::max(highest, ratio);
    sum_ratio += ratio;
    ++n;
  }
  ASSERT_GT(n, 1000);
  EXPECT_GE(lowest, 0.8 - 1e-6);
  EXPECT_LE(highest, 1.2 + 1e-6);
  EXPECT_LT(lowest, 0.82);
  EXPECT_GT(highest, 1.18);
  EXPECT_NEAR(sum_ratio / n, 1.0, 0.02);
  // Same seed, same run.
  const auto again = run_fixture("ppipe", "reservation", 0.8, ReservationMode::Horizon, 3, with(0.2, true));
  EXPECT_EQ(again.result.sim.events, jittered.result.sim.events);
  EXPECT_EQ(again.result.metrics->total().on_time, jittered.result.metrics->total().on_time);
  // Without feedback the tables keep the planned intervals: overruns then push real starts past
  // their reservations and requests finish late, which the corrected tables avoid.
  for (const auto mode : {ReservationMode::Horizon, ReservationMode::GapFilling}) {
    const auto fed = run_fixture("ppipe", "reservation", 0.8, mode, 3, with(0.2, true));
    const auto blind = run_fixture("ppipe", "reservation", 0.8, mode, 3, with(0.2, false));
    std::cout << (mode == ReservationMode::Horizon ? "horizon" : "gap-filling")
              << ", jitter 0.2: attainment with feedback " << attainment(fed.result) << " ("
              << fed.result.metrics->total().late() << " late), without " << attainment(blind.result) << " ("
              << blind.result.metrics->total().late() << " late)\n";
    EXPECT_LT(fed.result.metrics->total().late(), blind.result.metrics->total().late());
    EXPECT_GT(attainment(fed.result), attainment(blind.result));
  }
}

TEST(PpipeT19, SweepReturnsTheHighestLoadFactorMeetingTheTarget) {
  // A monotone stub: attainment falls below 99 % above load factor 0.95.
  auto stub = [](double lf) {
    LoadPoint p;
    p.slo_attainment = lf <= 0.95 + 1e-9 ? 0.995 : 0.9;
    return p;
  };
  LoadSweepOptions o;
  o.stop_at_first = true;
  const auto first = sweep_load_factors(o, stub);
  EXPECT_DOUBLE_EQ(first.max_load_factor, 0.95);
  ASSERT_EQ(first.points.size(), 2u);  // 1.00 missed, 0.95 met: the artifact stops there
  EXPECT_DOUBLE_EQ(first.points[0].load_factor, 1.0);
  o.stop_at_first = false;
  const auto curve = sweep_load_factors(o, stub);
  EXPECT_EQ(curve.points.size(), 20u);
  EXPECT_EQ(o.points(), 20);  // what a progress bar counts to
  EXPECT_EQ((LoadSweepOptions{0.1, 1.2, 0.1}.points()), 12);
  EXPECT_DOUBLE_EQ(curve.points.back().load_factor, 0.05);
  EXPECT_DOUBLE_EQ(curve.max_load_factor, 0.95);
  ASSERT_NE(curve.best(), nullptr);
  EXPECT_DOUBLE_EQ(curve.best()->load_factor, 0.95);
  // Nothing meets the target: max 0 and no best point.
  const auto none = sweep_load_factors(o, [](double) { return LoadPoint{}; });
  EXPECT_DOUBLE_EQ(none.max_load_factor, 0.0);
  EXPECT_EQ(none.best(), nullptr);
  EXPECT_THROW(sweep_load_factors(LoadSweepOptions{0.5, 0.2, 0.05}, stub), QueryError);
}
