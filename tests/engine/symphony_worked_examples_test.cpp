// Symphony digest §5, T1–T4 and T8–T10: the paper's worked examples replayed exactly.
// Time unit: 1 ms; ℓ(b) = b + 5, SLO 12, request R_i arrives at 0.75·(i − 1).
#include <gtest/gtest.h>
#include <set>

#include "engine/sim/simulator.h"
#include "engine/symphony/deferred_scheduler.h"
#include "tests/support/durations.h"
#include "tests/support/printers.h"

using namespace servescope;
using namespace servescope::engine;

namespace {

using ::servescope::test::ms;

struct DropLog final : RunRecorder {
  std::vector<std::pair<RequestId, Time>> drops;
  void on_drop(const Request& r, DropReason, Time when) override { drops.emplace_back(r.id, when); }
  std::set<RequestId> ids() const {
    std::set<RequestId> out;
    for (const auto& d : drops)
      out.insert(d.first);
    return out;
  }
};

struct Harness {
  std::vector<ScheduledModel> models;
  std::vector<GpuSlot> gpus;
  std::unique_ptr<DeferredScheduler> scheduler;
  std::unique_ptr<ListArrivals> arrivals;
  TimelineRecorder timeline;
  DropLog drops;
  RecorderFanout fanout;
  std::unique_ptr<Simulator> sim;

  Harness(std::vector<ScheduledModel> m, int n_gpus, std::vector<Arrival> list, DeferredOptions options)
      : models(std::move(m)) {
    for (int g = 0; g < n_gpus; ++g)
      gpus.push_back(GpuSlot{static_cast<std::uint32_t>(g), "G" + std::to_string(g + 1), "T", GpuShare::whole(), 0});
    scheduler = std::make_unique<DeferredScheduler>(models, gpus, options);
    arrivals = std::make_unique<ListArrivals>(std::move(list));
    fanout.add(timeline);
    fanout.add(drops);
    std::vector<BatchLatency> exec;
    for (const auto& model : models)
      exec.push_back(model.latency);
    sim = std::make_unique<Simulator>(gpus.size(), ExecutionTimes::uniform(std::move(exec), gpus.size()), *arrivals,
                                      *scheduler, fanout);
  }
};

ScheduledModel toy(Duration slo = ms(12)) {
  return {"toy", BatchLatency::linear(ms(1), ms(5), 64), slo};
}

// R_i at 0.75(i−1) for i in 1..n, except the ones in `missing`. Request ids follow arrival
// order, so they are renumbered; `names` maps request id → i.
std::vector<Arrival> uniform_arrivals(int n, const std::set<int>& missing, std::vector<int>& names) {
  std::vector<Arrival> out;
  names.assign(1, 0);
  for (int i = 1; i <= n; ++i) {
    if (missing.contains(i)) continue;
    out.push_back(Arrival{ms(0.75 * (i - 1)), 0, 0, ms(12)});
    names.push_back(i);
  }
  return out;
}

DeferredOptions paper_options() {
  DeferredOptions o;
  o.batch_rule = BatchRule::Greedy;  // the worked examples use greedy GetBatch
  o.gpu_pick = GpuPick::LowestId;
  return o;
}

}  // namespace

TEST(SymphonyT1, CandidateWindowNarrowsAsTheBatchGrows) {
  std::vector<int> names;
  Harness h({toy()}, 3, uniform_arrivals(5, {}, names), paper_options());
  struct Row {
    double t;
    int bs;
    double exec, latest;
  };
  for (const auto& row : {Row{0, 1, 5, 6}, Row{0.75, 2, 4, 5}, Row{1.5, 3, 3, 4}}) {
    h.sim->run_until(ms(row.t));
    const auto c = h.scheduler->candidate(0);
    ASSERT_TRUE(c) << row.t;
    EXPECT_EQ(c->batch, row.bs) << row.t;
    EXPECT_EQ(c->exec, ms(row.exec)) << row.t;
    EXPECT_EQ(c->latest, ms(row.latest)) << row.t;
  }
  h.sim->run();
  ASSERT_GE(h.timeline.spans().size(), 1u);
  const auto& first = h.timeline.spans().front();
  EXPECT_EQ(first.start, ms(2.25));
  EXPECT_EQ(first.size, 4u);  // R5 cannot join: 2.25 + ℓ(5) = 12.25 > 12
}

TEST(SymphonyT2, StaggeredExecutionOnThreeGpus) {
  std::vector<int> names;
  Harness h({toy()}, 3, uniform_arrivals(60, {}, names), paper_options());
  h.sim->run();
  const auto spans = h.timeline.spans_by_start();
  ASSERT_EQ(spans.size(), 15u);
  for (std::size_t k = 0; k < spans.size(); ++k) {
    EXPECT_EQ(spans[k].start, ms(2.25 + 3.0 * static_cast<double>(k))) << k;
    EXPECT_EQ(spans[k].gpu, k % 3) << k;
    EXPECT_EQ(spans[k].size, 4u) << k;
    EXPECT_EQ(spans[k].end - spans[k].start, ms(9)) << k;
  }
  EXPECT_TRUE(h.drops.drops.empty());
}

TEST(SymphonyT3, DeferredSchedulingAbsorbsMissingRequests) {
  std::vector<int> names;
  Harness h({toy()}, 3, uniform_arrivals(60, {13, 14, 15}, names), paper_options());
  h.sim->run();
  EXPECT_TRUE(h.drops.drops.empty());
  const auto spans = h.timeline.spans_by_start();
  struct Row {
    double start;
    std::uint32_t gpu;
  };
  const std::vector<Row> expected = {{2.25, 0}, {5.25, 1}, {8.25, 2}, {13.5, 0}, {16.5, 1}, {19.5, 2}, {22.5, 0}};
  ASSERT_GE(spans.size(), expected.size());
  for (std::size_t k = 0; k < expected.size(); ++k) {
    EXPECT_EQ(spans[k].start, ms(expected[k].start)) << k;
    EXPECT_EQ(spans[k].gpu, expected[k].gpu) << k;
    EXPECT_EQ(spans[k].size, 4u) << k;
  }
  // 57 requests: 14 batches of 4 in the restored stagger, then R60 alone when the trace ends.
  ASSERT_EQ(spans.size(), 15u);
  for (std::size_t k = 7; k + 1 < spans.size(); ++k) {
    EXPECT_EQ(spans[k].start - spans[k - 1].start, ms(3)) << k;
    EXPECT_EQ(spans[k].size, 4u) << k;
  }
  EXPECT_EQ(spans.back().size, 1u);
}

namespace {

// T3's arrivals, deferred until 11.25 and then `rule` (eager, or timeout with k = 0).
struct EagerRun {
  std::vector<TimelineSpan> spans;
  std::set<int> dropped;  // paper's request numbers
};

EagerRun run_switching_to(ExecRule rule) {
  std::vector<int> names;
  Harness h({toy()}, 3, uniform_arrivals(60, {13, 14, 15}, names), paper_options());
  h.sim->run_until(ms(11.25) - Duration::nanoseconds(1));
  h.scheduler->set_exec_rule(rule, Duration());
  h.sim->run();
  EagerRun out{h.timeline.spans_by_start(), {}};
  for (auto id : h.drops.ids())
    out.dropped.insert(names[id]);
  return out;
}

}  // namespace

TEST(SymphonyT4, EagerDispatchSpiralsIntoSmallBatchesAndDrops) {
  const auto run = run_switching_to(ExecRule::Eager);
  struct Row {
    double start;
    std::uint32_t size;
  };
  const std::vector<Row> expected = {{11.25, 1}, {14.25, 4}, {17.25, 4}, {18.0, 1}, {23.25, 2},
                                     {24.0, 3},  {26.25, 3}, {30.25, 1}, {32.0, 1}, {34.25, 1}};
  std::vector<TimelineSpan> after;
  for (const auto& s : run.spans)
    if (s.start >= ms(11.25)) after.push_back(s);
  ASSERT_GE(after.size(), expected.size());
  for (std::size_t k = 0; k < expected.size(); ++k) {
    EXPECT_EQ(after[k].start, ms(expected[k].start)) << k;
    EXPECT_EQ(after[k].size, expected[k].size) << k;
  }
  for (int r : {35, 37, 38, 40, 41, 43})
    EXPECT_TRUE(run.dropped.contains(r)) << "R" << r;
  for (int r : {34, 36, 39})
    EXPECT_FALSE(run.dropped.contains(r)) << "R" << r;
}

TEST(SymphonyT10, TimeoutZeroIsEager) {
  const auto eager = run_switching_to(ExecRule::Eager);
  const auto timeout = run_switching_to(ExecRule::Timeout);
  ASSERT_EQ(eager.spans.size(), timeout.spans.size());
  for (std::size_t k = 0; k < eager.spans.size(); ++k) {
    EXPECT_EQ(eager.spans[k].start, timeout.spans[k].start) << k;
    EXPECT_EQ(eager.spans[k].size, timeout.spans[k].size) << k;
  }
  EXPECT_EQ(eager.dropped, timeout.dropped);
}

TEST(SymphonyT8, FreedGpuTakesTheMostUrgentCandidate) {
  // Two fillers keep G1 busy until 10 and G2 until 11; A (ℓ = b + 5, SLO 16.5) and B
  // (ℓ = 2b + 2, SLO 15.8) both become schedulable before any GPU frees.
  std::vector<ScheduledModel> models = {
      {"fill10", BatchLatency::linear(Duration(), ms(10), 1), ms(10)},
      {"fill11", BatchLatency::linear(Duration(), ms(11), 1), ms(11)},
      {"A", BatchLatency::linear(ms(1), ms(5), 64), ms(16.5)},
      {"B", BatchLatency::linear(ms(2), ms(2), 64), ms(15.8)},
  };
  std::vector<Arrival> list = {
      {ms(0), 0, 0, ms(10)}, {ms(0), 1, 1, ms(11)}, {ms(0), 2, 2, ms(16.5)}, {ms(0), 3, 3, ms(15.8)}};
  Harness h(models, 2, list, paper_options());
  h.sim->run();
  EXPECT_TRUE(h.drops.drops.empty());
  std::map<std::uint32_t, TimelineSpan> by_model;
  for (const auto& s : h.timeline.spans())
    by_model[s.model] = s;
  EXPECT_EQ(by_model[2].gpu, 0u);
  EXPECT_EQ(by_model[2].start, ms(10));
  EXPECT_EQ(by_model[2].end, ms(16));
  EXPECT_EQ(by_model[3].gpu, 1u);
  EXPECT_EQ(by_model[3].start, ms(11));
  EXPECT_EQ(by_model[3].end, ms(15));
}

namespace {

DeferredOptions network_options() {
  auto o = paper_options();
  o.d_ctrl = ms(0.1);
  o.d_data = ms(0.05);
  return o;
}

}  // namespace

TEST(SymphonyT9, NetworkDelayAwareCandidate) {
  // (a) An idle GPU: granted at exec − delay(1) = 4.85, the batch starts at exec 5, frees at 11.
  {
    Harness h({toy()}, 1, {{ms(0), 0, 0, ms(12)}}, network_options());
    h.sim->run_until(ms(0));
    const auto c = h.scheduler->candidate(0);
    ASSERT_TRUE(c);
    EXPECT_EQ(c->exec, ms(5));
    EXPECT_EQ(c->latest, ms(6));
    h.sim->run_until(ms(4.85));
    EXPECT_EQ(h.scheduler->gpu_free_at(0), ms(11));
    h.sim->run();
    ASSERT_EQ(h.timeline.spans().size(), 1u);
    EXPECT_EQ(h.timeline.spans()[0].start, ms(5));
  }
  // (b) The only GPU frees at 5.5: pending at 4.85, granted by the GPU timer at 5.35, starts 5.5.
  {
    std::vector<ScheduledModel> models = {toy(),
                                          {"fill", BatchLatency::linear(Duration(), ms(5.5) - ms(0.15), 1), ms(20)}};
    // The filler arrives first and is dispatched at once (a full batch of 1): it occupies the
    // GPU from 0.15 (its own delay) to 5.5.
    Harness h(models, 1, {{ms(0), 1, 1, ms(20)}, {ms(0), 0, 0, ms(12)}}, network_options());
    h.sim->run();
    EXPECT_TRUE(h.drops.drops.empty());
    const auto spans = h.timeline.spans_by_start();
    ASSERT_EQ(spans.size(), 2u);
    EXPECT_EQ(spans[0].end, ms(5.5));
    EXPECT_EQ(spans[1].model, 0u);
    EXPECT_EQ(spans[1].start, ms(5.5));
    EXPECT_EQ(spans[1].end, ms(11.5));
  }
  // (c) The GPU frees at 6.5, after the window closed: the request is dropped, never run.
  {
    std::vector<ScheduledModel> models = {toy(),
                                          {"fill", BatchLatency::linear(Duration(), ms(6.5) - ms(0.15), 1), ms(20)}};
    Harness h(models, 1, {{ms(0), 1, 1, ms(20)}, {ms(0), 0, 0, ms(12)}}, network_options());
    h.sim->run();
    ASSERT_EQ(h.drops.drops.size(), 1u);
    EXPECT_LE(h.drops.drops[0].second, ms(12));
    EXPECT_EQ(h.timeline.spans().size(), 1u);
  }
}
