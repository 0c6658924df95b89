// What the timeline view reports about a run, checked against brute force over the same run: a
// range's batches, busy shares, finished, late and dropped requests and latency percentiles;
// one request's flow through a pooled pipeline (its stages and the transfers between them, GPU
// to GPU); finding a request by id; the utilisation sparkline.
#include <gtest/gtest.h>
#include <map>
#include <random>

#include "engine/systems/system_registry.h"
#include "engine/timeline/range_summary.h"
#include "engine/timeline/request_flow.h"
#include "engine/timeline/request_story.h"
#include "tests/support/pipeline_run.h"

namespace servescope::engine {
namespace {

const TimelineData& pipeline_run() {
  static const TimelineData timeline = [] {
    // Past capacity (1.3): some requests are dropped.
    auto t = test::simulate_pipeline_timeline(1.3, Duration::seconds(4));
    // PPipe's reservations drop what would be late rather than run it late, so no request of
    // the run is: tighten every seventh request's deadline (in each stage that carries it) to
    // give the late count something to count.
    for (auto& r : t.requests)
      if (r.id % 7 == 0) r.deadline = r.arrival;
    return t;
  }();
  return timeline;
}

// The brute force: every span, every request, every drop looked at for each range.
RangeSummary brute_force(const TimelineData& t, const TimelineIndex& index, Time from, Time to) {
  RangeSummary out;
  out.busy.assign(index.rows(), 0.0);
  std::map<std::uint32_t, std::vector<std::pair<std::int64_t, std::int64_t>>> pieces;  // per slot
  std::map<RequestId, std::tuple<Time, Time, Time, std::uint32_t>> last;               // end, arrival, deadline, model
  for (std::size_t i = 0; i < t.spans.size(); ++i) {
    const auto& s = t.spans[i];
    if (s.start >= from && s.start < to) ++out.batches;
    const auto a = std::max(s.start, from), e = std::min(s.end, to);
    if (e > a) pieces[s.gpu].emplace_back(a.count_ns(), e.count_ns());
    if (s.preempted) continue;
    for (const auto& r : t.requests_of(i)) {
      auto& l = last[r.id];
      if (std::get<0>(l) < s.end) l = {s.end, r.arrival, r.deadline, s.model};
    }
  }
  for (auto& [slot, list] : pieces) {
    std::ranges::sort(list);
    std::int64_t busy = 0, reach = INT64_MIN;
    for (const auto& [a, e] : list) {
      const auto from_ns = std::max(a, reach);
      if (e > from_ns) busy += e - from_ns;
      reach = std::max(reach, e);
    }
    out.busy[*index.row_of_slot(slot)] = static_cast<double>(busy) / static_cast<double>((to - from).count_ns());
  }
  std::vector<Duration> latencies;
  std::map<std::uint32_t, std::vector<Duration>> model_latencies;
  std::map<std::uint32_t, ModelViolations> models;
  std::uint64_t late = 0;
  for (const auto& [id, l] : last) {
    const auto& [end, arrival, deadline, model] = l;
    if (end < from || end >= to) continue;
    latencies.push_back(end - arrival);
    model_latencies[model].push_back(end - arrival);
    auto& v = models[model];
    ++v.finished;
    if (end > deadline) {
      ++late;
      ++v.late;
      v.worst_lateness = std::max(v.worst_lateness, end - deadline);
    }
  }
  out.finished = latencies.size();
  out.late = late;
  const auto pick = [](std::vector<Duration> values, double p) -> std::optional<Duration> {
    if (values.empty()) return std::nullopt;
    std::ranges::sort(values);
    std::size_t k = 0;
    while (static_cast<double>(k + 1) < p / 100.0 * static_cast<double>(values.size()))
      ++k;
    return values[k];
  };
  out.p50 = pick(latencies, 50);
  out.p99 = pick(latencies, 99);
  for (const auto& d : t.drops)
    if (d.time >= from && d.time < to) {
      ++out.dropped;
      auto& v = models[d.model];
      ++v.dropped[static_cast<std::size_t>(d.reason)];
      if (!v.first_drop) v.first_drop = d.time;
    }
  for (auto& [model, v] : models) {
    v.model = model;
    v.p50 = pick(model_latencies[model], 50);
    v.p99 = pick(model_latencies[model], 99);
    out.models.push_back(v);
  }
  return out;
}

TEST(RangeSummary, MatchesABruteForceCountOverTheRun) {
  const auto& t = pipeline_run();
  ASSERT_FALSE(t.requests.empty());
  ASSERT_FALSE(t.drops.empty()) << "the run should be overloaded enough to drop";
  const TimelineIndex index(t);
  const RangeSummariser summariser(t, index);
  std::mt19937_64 rng(7);
  std::uniform_int_distribution<std::int64_t> at(0, t.end.count_ns());
  std::uint64_t late_seen = 0;
  for (int trial = 0; trial < 25; ++trial) {
    auto a = at(rng), b = at(rng);
    if (trial == 0) a = 0, b = t.end.count_ns() + 1;  // the whole run
    if (a > b) std::swap(a, b);
    if (a == b) continue;
    const auto from = Time::nanoseconds(a), to = Time::nanoseconds(b);
    const auto got = summariser.summarise(from, to);
    const auto want = brute_force(t, index, from, to);
    SCOPED_TRACE(testing::Message() << "range " << a << "–" << b << " ns");
    EXPECT_EQ(got.batches, want.batches);
    ASSERT_EQ(got.busy.size(), want.busy.size());
    for (std::size_t r = 0; r < got.busy.size(); ++r)
      EXPECT_NEAR(got.busy[r], want.busy[r], 1e-9) << "row " << r;
    EXPECT_EQ(got.finished, want.finished);
    EXPECT_EQ(got.late, want.late);
    EXPECT_EQ(got.dropped, want.dropped);
    EXPECT_EQ(got.p50, want.p50);
    EXPECT_EQ(got.p99, want.p99);
    late_seen += got.late.value_or(0);
    // Per model: the same counts, by reason, percentiles, and a worst batch that holds a request
    // late by the most any of the model's was.
    ASSERT_EQ(got.models.size(), want.models.size());
    for (std::size_t k = 0; k < want.models.size(); ++k) {
      const auto &g = got.models[k], &w = want.models[k];
      SCOPED_TRACE(testing::Message() << "model " << w.model);
      EXPECT_EQ(g.model, w.model);
      EXPECT_EQ(g.finished, w.finished);
      EXPECT_EQ(g.late, w.late);
      EXPECT_EQ(g.dropped, w.dropped);
      EXPECT_EQ(g.first_drop, w.first_drop);
      EXPECT_EQ(g.p50, w.p50);
      EXPECT_EQ(g.p99, w.p99);
      const auto attainment = g.attainment_pct();
      ASSERT_TRUE(attainment.has_value());
      EXPECT_DOUBLE_EQ(*attainment, 100.0 * static_cast<double>(w.finished - w.late) /
                                        static_cast<double>(w.finished + w.dropped_total()));
      ASSERT_EQ(g.worst_span.has_value(), w.late > 0);
      if (!g.worst_span) continue;
      EXPECT_EQ(g.worst_lateness, w.worst_lateness);
      const auto& span = t.spans[*g.worst_span];
      EXPECT_EQ(span.model, w.model);
      EXPECT_TRUE(std::ranges::any_of(t.requests_of(*g.worst_span),
                                      [&](const SpanRequest& r) { return span.end - r.deadline == w.worst_lateness; }));
    }
  }
  EXPECT_GT(late_seen, 0u) << "some range should hold late requests, or the count is untested";
}

TEST(RangeSummary, NoRequestListsMeansNoRequestCounts) {
  auto t = pipeline_run();
  t.requests.clear();
  const TimelineIndex index(t);
  const auto s = RangeSummariser(t, index).summarise(Time(), t.end);
  EXPECT_FALSE(s.finished.has_value());
  EXPECT_FALSE(s.p99.has_value());
  EXPECT_EQ(s.dropped, t.drops.size());
  EXPECT_GT(s.batches, 0u);
  // Per model, the drops still count; finished and attainment are not known, so not claimed.
  ASSERT_FALSE(s.models.empty());
  std::uint64_t dropped = 0;
  for (const auto& m : s.models) {
    EXPECT_FALSE(m.attainment_pct().has_value());
    EXPECT_FALSE(m.worst_span.has_value());
    dropped += m.dropped_total();
  }
  EXPECT_EQ(dropped, t.drops.size());
}

TEST(RequestFlow, FollowsOneBatchThroughItsStagesAndTransfers) {
  const auto& t = pipeline_run();
  ASSERT_FALSE(t.transfers.empty()) << "the pipeline run should move feature maps";
  const TimelineIndex index(t);
  std::size_t multi_stage = 0;
  for (std::uint32_t i = 0; i < t.spans.size() && multi_stage < 50; ++i) {
    const auto group = index.linked(i);
    if (group.size() < 2 || group.front() != i) continue;
    ++multi_stage;
    const auto flow = flow_of(t, index, group.back());  // any stage gives the same flow
    std::size_t batches = 0;
    for (std::size_t k = 0; k < flow.size(); ++k) {
      const auto& step = flow[k];
      if (k > 0) {
        EXPECT_GE(step.start, flow[k - 1].start);
      }
      if (step.kind == FlowStep::Kind::Batch) {
        EXPECT_EQ(step.index, group[batches]) << "stages in order";
        ++batches;
        continue;
      }
      // A transfer sits between the stage whose output it carries and the next stage.
      const auto& transfer = t.transfers[step.index];
      ASSERT_GT(k, 0u);
      ASSERT_LT(k + 1, flow.size());
      ASSERT_EQ(flow[k - 1].kind, FlowStep::Kind::Batch);
      const auto& before = t.spans[flow[k - 1].index];
      EXPECT_EQ(transfer.batch, before.batch);
      EXPECT_EQ(transfer.from_gpu, before.gpu);
      EXPECT_GE(transfer.start, before.end);
      const auto& after = t.spans[flow[k + 1].index];
      EXPECT_EQ(transfer.to_gpu, after.gpu);
      EXPECT_LE(transfer.end, after.start);
    }
    EXPECT_EQ(batches, group.size());
  }
  EXPECT_GT(multi_stage, 0u);
  // A request's first batch carries it, and nothing earlier does.
  const auto& someone = t.requests[t.requests.size() / 2];
  const auto first = first_batch_of_request(t, someone.id);
  ASSERT_TRUE(first.has_value());
  const auto carried = t.requests_of(*first);
  EXPECT_TRUE(std::ranges::any_of(carried, [&](const SpanRequest& r) { return r.id == someone.id; }));
  for (std::uint32_t i = 0; i < *first; ++i) {
    for (const auto& r : t.requests_of(i)) {
      ASSERT_NE(r.id, someone.id);
    }
  }
  EXPECT_FALSE(first_batch_of_request(t, 0xFFFF'FFFF'FFFFull).has_value());
}

TEST(RangeSummary, BusyProfileAveragesToTheWholeRunsBusyShare) {
  const auto& t = pipeline_run();
  const TimelineIndex index(t);
  const auto whole = RangeSummariser(t, index).summarise(Time(), t.end);
  for (std::size_t r = 0; r < index.rows(); ++r) {
    const auto profile = busy_profile(index, r, Time(), t.end, 40);
    ASSERT_EQ(profile.size(), 40u);
    double mean = 0;
    for (const auto v : profile) {
      EXPECT_GE(v, 0.0f);
      EXPECT_LE(v, 1.0f);
      mean += static_cast<double>(v) / 40.0;
    }
    EXPECT_NEAR(mean, whole.busy[r], 0.01) << "row " << r;
  }
}

// Teaching mode's story of one request follows the run: it arrives, waits until its first
// batch, runs each stage (with the transfer between them) and finishes when its last batch ends;
// a dropped request's story ends in its drop, with the reason.
TEST(RequestStory, TellsARequestsLifeAsTheRunHadIt) {
  const auto& t = pipeline_run();
  const TimelineIndex index(t);
  const auto& decides = data_plane_traits("reservation").decides;
  ASSERT_FALSE(decides.empty());
  // A request carried through two stages.
  std::optional<RequestId> staged;
  for (std::uint32_t i = 0; i < t.spans.size() && !staged; ++i)
    if (index.linked(i).size() == 2 && !t.requests_of(i).empty() && !t.spans[i].preempted)
      staged = t.requests_of(i).front().id;
  ASSERT_TRUE(staged.has_value());
  const auto story = request_story(t, index, *staged, decides);
  ASSERT_TRUE(story.has_value());
  using Kind = StoryStep::Kind;
  std::vector<Kind> kinds;
  for (const auto& s : story->steps)
    kinds.push_back(s.kind);
  ASSERT_GE(kinds.size(), 5u);
  EXPECT_EQ(kinds.front(), Kind::Arrival);
  EXPECT_EQ(kinds.back(), Kind::Finished);
  EXPECT_EQ(std::ranges::count(kinds, Kind::Batch), 2);
  EXPECT_EQ(std::ranges::count(kinds, Kind::Transfer), 1);
  EXPECT_TRUE(std::ranges::is_sorted(story->steps, {}, &StoryStep::at));
  const auto first_batch = std::ranges::find(story->steps, Kind::Batch, &StoryStep::kind);
  EXPECT_EQ(first_batch->why, decides);  // why the batch ran when it did
  EXPECT_EQ(story->steps.back().at, t.spans[*(story->steps.end() - 2)->span].end);
  const auto waiting = std::ranges::find(story->steps, Kind::Waiting, &StoryStep::kind);
  if (waiting != story->steps.end()) {
    EXPECT_EQ(waiting->at, story->arrival);
    EXPECT_EQ(waiting->until, first_batch->at);
  }
  // A dropped request: its drop, with the reason.
  const auto dropped = request_to_tell(t, Time(), true);
  ASSERT_TRUE(dropped.has_value());
  const auto drop_story = request_story(t, index, *dropped, decides);
  ASSERT_TRUE(drop_story.has_value());
  EXPECT_EQ(drop_story->steps.back().kind, Kind::Dropped);
  EXPECT_NE(drop_story->steps.back().why.find("because"), std::string::npos);
  // Issue 47, defect 6: it starts at its arrival, and a request no batch took waits until its drop
  // (the story was its drop alone).
  const auto mark = std::ranges::find(t.drops, dropped, &DropMark::request);
  ASSERT_TRUE(mark->arrival.has_value());
  EXPECT_EQ(drop_story->steps.front().kind, Kind::Arrival);
  EXPECT_EQ(drop_story->steps.front().at, *mark->arrival);
  EXPECT_EQ(drop_story->deadline, mark->deadline);
  if (std::ranges::none_of(drop_story->steps, [](const StoryStep& s) { return s.kind == Kind::Batch; })) {
    // Dropped on arrival (no reservation could reach its deadline), or after a wait in its queue.
    const bool waited = mark->time > *mark->arrival;
    ASSERT_EQ(drop_story->steps.size(), waited ? 3u : 2u);
    if (waited) {
      EXPECT_EQ(drop_story->steps[1].kind, Kind::Waiting);
      EXPECT_EQ(drop_story->steps[1].until, mark->time);
    }
  }
  // The arrival and deadline survive the file, as rows and packed.
  for (const auto encoding : {TimelineEncoding::Rows, TimelineEncoding::Packed}) {
    const auto back = timeline_from_json(to_json(t, encoding), "round trip");
    const auto again = std::ranges::find(back.drops, dropped, &DropMark::request);
    ASSERT_NE(again, back.drops.end());
    EXPECT_EQ(again->arrival, mark->arrival);
    EXPECT_EQ(again->deadline, mark->deadline);
  }
  EXPECT_FALSE(request_story(t, index, 0xFFFF'FFFF'FFFFull, decides).has_value());
  // The request to tell after a time is carried by a batch starting then or later (its earlier
  // stages may have run before).
  const auto half = Time::nanoseconds(t.end.count_ns() / 2);
  const auto later = request_to_tell(t, half);
  ASSERT_TRUE(later.has_value());
  const auto told = request_story(t, index, *later, decides);
  ASSERT_TRUE(told.has_value());
  EXPECT_TRUE(
      std::ranges::any_of(told->steps, [&](const StoryStep& s) { return s.kind == Kind::Batch && s.at >= half; }));
}

}  // namespace
}  // namespace servescope::engine
