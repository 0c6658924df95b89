// A timeline grown chunk by chunk, as a live view takes it, is the run read whole: the same spans
// in the same order with the same requests, the same index; and letting go of its oldest detail
// leaves the run from there on. The recorder hands out what it saw since the last take.
#include "engine/timeline/timeline_growth.h"

#include <algorithm>
#include <gtest/gtest.h>

#include "engine/timeline/timeline_index.h"
#include "tests/support/pipeline_run.h"
#include "tests/support/timeline_chunks.h"

namespace servescope::engine {
namespace {

using test::chunks_of;
using test::layout_of;

const TimelineData& overloaded_run() {
  // Past capacity (1.2): queues build and some requests are dropped, so every table has rows.
  static const TimelineData timeline = test::simulate_pipeline_timeline(1.2, Duration::seconds(3));
  return timeline;
}

void expect_same_timeline(const TimelineData& grown, const TimelineData& whole) {
  ASSERT_EQ(grown.spans.size(), whole.spans.size());
  for (std::size_t i = 0; i < whole.spans.size(); ++i) {
    const auto &a = grown.spans[i], &b = whole.spans[i];
    ASSERT_TRUE(a.batch == b.batch && a.gpu == b.gpu && a.start == b.start && a.end == b.end && a.late == b.late &&
                a.first_request == b.first_request)
        << "span " << i;
    const auto ra = grown.requests_of(i), rb = whole.requests_of(i);
    ASSERT_EQ(ra.size(), rb.size()) << "span " << i;
    for (std::size_t k = 0; k < ra.size(); ++k)
      ASSERT_EQ(ra[k].id, rb[k].id) << "span " << i;
  }
  ASSERT_EQ(grown.transfers.size(), whole.transfers.size());
  for (std::size_t i = 0; i < whole.transfers.size(); ++i)
    EXPECT_EQ(grown.transfers[i].transfer, whole.transfers[i].transfer) << "transfer " << i;
  ASSERT_EQ(grown.queue.size(), whole.queue.size());
  for (std::size_t i = 0; i < whole.queue.size(); ++i)
    EXPECT_TRUE(grown.queue[i].time == whole.queue[i].time && grown.queue[i].model == whole.queue[i].model &&
                grown.queue[i].depth == whole.queue[i].depth)
        << "queue sample " << i;
  ASSERT_EQ(grown.drops.size(), whole.drops.size());
  for (std::size_t i = 0; i < whole.drops.size(); ++i)
    EXPECT_EQ(grown.drops[i].request, whole.drops[i].request) << "drop " << i;
}

void expect_same_index(const TimelineIndex& grown, const TimelineIndex& whole, const TimelineData& t) {
  ASSERT_EQ(grown.rows(), whole.rows());
  for (std::size_t r = 0; r < whole.rows(); ++r) {
    ASSERT_EQ(grown.slot(r), whole.slot(r));
    ASSERT_TRUE(std::ranges::equal(grown.spans(r), whole.spans(r))) << "row " << r;
    ASSERT_TRUE(std::ranges::equal(grown.boxes(r), whole.boxes(r),
                                   [](const auto& a, const auto& b) {
                                     return a.start == b.start && a.end == b.end && a.late == b.late &&
                                            a.group == b.group;
                                   }))
        << "row " << r;
    // Windows across the run, narrow and wide.
    for (auto from = t.spans.front().start; from < t.end; from += Duration::milliseconds(97))
      for (const auto width : {Duration::microseconds(300), Duration::milliseconds(40)})
        ASSERT_EQ(grown.range(r, from, from + width), whole.range(r, from, from + width)) << "row " << r;
  }
  for (std::uint32_t i = 0; i < t.spans.size(); i += 13)
    ASSERT_EQ(grown.linked(i), whole.linked(i)) << "span " << i;
}

TEST(TimelineGrowth, ARunGrownChunkByChunkIsTheRunReadWhole) {
  const auto& whole = overloaded_run();
  ASSERT_GT(whole.spans.size(), 500u);
  ASSERT_FALSE(whole.transfers.empty());
  ASSERT_FALSE(whole.drops.empty());
  auto grown = layout_of(whole);
  TimelineIndex index(grown);
  std::size_t moved = 0;
  for (auto& chunk : chunks_of(whole, Duration::milliseconds(25))) {
    const auto before = grown.spans.size();
    const auto added = chunk.spans.size();
    const auto change = append(grown, std::move(chunk));
    ASSERT_LE(change.spans, before);
    moved += before - change.spans;
    ASSERT_EQ(grown.spans.size(), before + added);
    index.extend(change.spans);
  }
  expect_same_timeline(grown, whole);
  EXPECT_EQ(grown.end, whole.end);
  expect_same_index(index, TimelineIndex(whole), whole);
  // Batches are reported as they end: a chunk moves only the few that started after its
  // earliest, far fewer than the run (what makes a refresh cost what arrived).
  EXPECT_LT(moved, whole.spans.size() / 4) << moved << " of " << whole.spans.size() << " spans moved";
}

TEST(TimelineGrowth, LettingGoOfTheOldestLeavesTheRunFromThere) {
  const auto& whole = overloaded_run();
  const auto chunks = chunks_of(whole, Duration::milliseconds(25));
  auto grown = layout_of(whole);
  TimelineIndex index(grown);
  const auto cut = Duration::nanoseconds(whole.end.count_ns() / 2) - Duration::milliseconds(500);
  std::size_t taken = 0;
  // Half the run, let go of its first part, then the rest: as a live view with a history.
  for (; taken < chunks.size() / 2; ++taken)
    index.extend(append(grown, chunks[taken]).spans);
  const auto forgotten = forget_before(grown, cut);
  EXPECT_GT(forgotten.spans, 0u);
  index.forget(forgotten.spans);
  for (; taken < chunks.size(); ++taken)
    index.extend(append(grown, chunks[taken]).spans);

  auto rest = layout_of(whole);
  for (std::size_t i = 0; i < whole.spans.size(); ++i) {
    if (whole.spans[i].start < cut) continue;
    auto span = whole.spans[i];
    span.requests_at = rest.requests.size();
    const auto requests = whole.requests_of(i);
    rest.requests.insert(rest.requests.end(), requests.begin(), requests.end());
    rest.spans.push_back(span);
  }
  std::ranges::copy_if(whole.transfers, std::back_inserter(rest.transfers),
                       [&](const TransferSpan& t) { return t.start >= cut; });
  std::ranges::copy_if(whole.queue, std::back_inserter(rest.queue),
                       [&](const QueueSample& q) { return q.time >= cut; });
  std::ranges::copy_if(whole.drops, std::back_inserter(rest.drops), [&](const DropMark& d) { return d.time >= cut; });
  expect_same_timeline(grown, rest);
  expect_same_index(index, TimelineIndex(rest), rest);
  // What was let go is not kept: only requests of a few let-go spans may wait for the next cut.
  EXPECT_LT(grown.requests.size(), rest.requests.size() + rest.requests.size() / 20);
}

Request request(RequestId id, Time arrival) {
  Request r;
  r.id = id;
  r.arrival = arrival;
  r.deadline = arrival + Duration::milliseconds(10);
  return r;
}

Batch batch(BatchId id, std::uint32_t gpu, std::vector<Request> requests) {
  Batch b;
  b.id = id;
  b.gpu = gpu;
  b.requests = std::move(requests);
  return b;
}

TEST(TimelineRecorder, HandsOutWhatItSawSinceTheLastTake) {
  TimelineRecorder recorder;
  const auto ms = [](std::int64_t n) { return Duration::milliseconds(n); };
  const auto a = request(1, ms(0)), b = request(2, ms(1)), c = request(3, ms(5));
  recorder.on_arrival(a);
  recorder.on_arrival(b);
  recorder.on_dispatch(batch(10, 0, {a, b}), ms(2));
  recorder.on_batch(batch(10, 0, {a, b}), ms(2), ms(4), true);
  auto first = recorder.take();
  ASSERT_EQ(first.spans.size(), 1u);
  EXPECT_EQ(first.spans[0].requests_at, 0u);
  ASSERT_EQ(first.requests.size(), 2u);
  EXPECT_EQ(first.requests[1].id, 2u);
  EXPECT_EQ(first.queue.back().depth, 0u);  // both left at the dispatch
  EXPECT_TRUE(recorder.take().empty());     // nothing new

  // The queue carries on across takes: c waits behind nobody, then a dropped fourth behind it.
  recorder.on_arrival(c);
  recorder.on_arrival(request(4, ms(6)));
  recorder.on_drop(request(4, ms(6)), DropReason::DeadlineUnreachable, ms(20));
  recorder.on_dispatch(batch(11, 1, {c}), ms(21));
  recorder.on_batch(batch(11, 1, {c}), ms(21), ms(22), true);
  const auto second = recorder.take();
  ASSERT_EQ(second.spans.size(), 1u);
  EXPECT_EQ(second.spans[0].requests_at, 0u);  // indexes this chunk's own requests
  ASSERT_EQ(second.requests.size(), 1u);
  EXPECT_EQ(second.requests[0].id, 3u);
  ASSERT_EQ(second.drops.size(), 1u);
  ASSERT_GE(second.queue.size(), 2u);
  EXPECT_EQ(second.queue[0].depth, 1u);  // c alone: a and b had left before the take
  EXPECT_EQ(second.queue.back().depth, 0u);
}

TEST(TimelineRecorder, LetsGoOfWhatEndedBeforeAndKeepsTheRestWhole) {
  TimelineRecorder recorder;
  const auto ms = [](std::int64_t n) { return Duration::milliseconds(n); };
  for (std::uint32_t k = 0; k < 10; ++k) {
    const auto at = ms(10 * std::int64_t{k});
    const auto r1 = request(2 * k + 1, at), r2 = request(2 * k + 2, at);
    recorder.on_arrival(r1);
    recorder.on_arrival(r2);
    recorder.on_batch(batch(k, k % 2, {r1, r2}), at + ms(1), at + ms(5), true);
  }
  recorder.forget_before(ms(50));  // batches 0–4 ended before 50 ms
  const auto chunk = recorder.take();
  ASSERT_EQ(chunk.spans.size(), 5u);
  EXPECT_EQ(chunk.requests.size(), 10u);
  for (const auto& span : chunk.spans) {
    ASSERT_LE(span.requests_at + span.size, chunk.requests.size());
    EXPECT_EQ(chunk.requests[span.requests_at].id, 2 * span.batch + 1);
    EXPECT_EQ(chunk.requests[span.requests_at + 1].id, 2 * span.batch + 2);
  }
  EXPECT_TRUE(std::ranges::all_of(chunk.queue, [&](const QueueSample& q) { return q.time >= ms(50); }));
}

// Notices come with the chunk of their time, merge in by time (a late chunk's earlier notice goes
// before), grow the end, and are let go with the rest of the old detail.
TEST(TimelineGrowth, NoticesMergeByTimeAndAreLetGoWithTheOldest) {
  const auto ms = [](std::int64_t n) { return Duration::milliseconds(n); };
  TimelineData grown;
  TimelineChunk first, second;
  first.notices = {{ms(10), NoticeKind::WorkerBack, "worker a joined", {0}},
                   {ms(40), NoticeKind::WorkerLost, "worker of a lost", {0}}};
  second.notices = {{ms(30), NoticeKind::WorkerLate, "worker of b is late", {1}},
                    {ms(90), NoticeKind::PlanSwitched, "switched", {}}};
  EXPECT_EQ(append(grown, first).notices, 0u);
  EXPECT_EQ(append(grown, second).notices, 1u);  // the 30-ms one went before the 40-ms one
  ASSERT_EQ(grown.notices.size(), 4u);
  EXPECT_TRUE(std::ranges::is_sorted(grown.notices, {}, &RunNotice::time));
  EXPECT_EQ(grown.notices[1].kind, NoticeKind::WorkerLate);
  EXPECT_EQ(grown.end, ms(90));
  const auto cut = forget_before(grown, ms(35));
  EXPECT_EQ(cut.notices, 2u);
  EXPECT_TRUE(cut.any());
  ASSERT_EQ(grown.notices.size(), 2u);
  EXPECT_EQ(grown.notices[0].text, "worker of a lost");
}

}  // namespace
}  // namespace servescope::engine
