// Packed timelines (engine/timeline/timeline_packing.h) and what a project keeps of them
// (engine/analysis/kept_timeline.h): exact round trips, the size they save, and refusals of
// broken or hostile packed text that name the place.
#include "engine/timeline/timeline_packing.h"

#include <functional>
#include <gtest/gtest.h>
#include <tuple>

#include "engine/analysis/kept_timeline.h"
#include "engine/systems/scenario_simulation.h"
#include "engine/timeline/timeline_data.h"
#include "model/core/error.h"
#include "model/io/document.h"
#include "model/io/packed_bytes.h"
#include "tests/support/pipeline_run.h"
#include "tests/support/small_timeline.h"

namespace servescope::engine {
namespace {

auto fields(const TimelineSpan& s) {
  return std::tuple(s.batch, s.gpu, s.model, s.size, s.start, s.end, s.preempted, s.late, s.first_request,
                    s.window_open, s.window_close);
}
auto fields(const TransferSpan& s) {
  return std::tuple(s.batch, s.from_gpu, s.to_gpu, s.bytes, s.start, s.end);
}
auto fields(const QueueSample& q) {
  return std::tuple(q.time, q.model, q.depth);
}
auto fields(const SpanRequest& r) {
  return std::tuple(r.id, r.arrival, r.deadline);
}
auto fields(const DropMark& d) {
  return std::tuple(d.time, d.model, d.reason, d.request);
}

template <typename T>
void expect_same_rows(const std::vector<T>& a, const std::vector<T>& b, const char* what) {
  ASSERT_EQ(a.size(), b.size()) << what;
  for (std::size_t i = 0; i < a.size(); ++i)
    ASSERT_TRUE(fields(a[i]) == fields(b[i])) << what << " row " << i;
}

// Every table, to the nanosecond, and the layout.
void expect_same_timeline(const TimelineData& a, const TimelineData& b) {
  EXPECT_EQ(a.system, b.system);
  EXPECT_EQ(a.gpus, b.gpus);
  EXPECT_EQ(a.gpu_physical, b.gpu_physical);
  EXPECT_EQ(a.models, b.models);
  EXPECT_EQ(a.model_slo, b.model_slo);
  expect_same_rows(a.spans, b.spans, "spans");
  expect_same_rows(a.transfers, b.transfers, "transfers");
  expect_same_rows(a.queue, b.queue, "queue");
  // Each batch's requests (where they sit in the list is the reader's business).
  ASSERT_EQ(a.requests.size(), b.requests.size());
  for (std::size_t i = 0; i < a.spans.size() && i < b.spans.size(); ++i)
    expect_same_rows(std::vector(a.requests_of(i).begin(), a.requests_of(i).end()),
                     std::vector(b.requests_of(i).begin(), b.requests_of(i).end()), "requests");
  expect_same_rows(a.drops, b.drops, "drops");
  EXPECT_EQ(a.end, b.end);
}

TimelineData packed_round_trip(const TimelineData& t) {
  // Through text, as a project file carries it.
  return timeline_from_json(nlohmann::json::parse(to_json(t, TimelineEncoding::Packed).dump()), "p.json");
}

TimelineData symphony_demo_timeline(Duration length) {
  const auto project = load_project("builtin:projects/demo.json");
  SimulationSpec spec;
  spec.workloads = {"mixed-37"};
  spec.duration = length;
  spec.warmup = Duration::milliseconds(200);
  spec.timeline = true;
  return timeline_of(simulate(project.scenario, spec));
}

TEST(TimelinePacking, RoundTripsEveryTableExactly) {
  // A pooled pipeline: stages, transfers, each stage's requests.
  const auto pipeline = test::simulate_pipeline_timeline(0.9, Duration::seconds(2));
  ASSERT_FALSE(pipeline.transfers.empty());
  ASSERT_FALSE(pipeline.requests.empty());
  expect_same_timeline(packed_round_trip(pipeline), pipeline);
  // Symphony's batches carry their schedulable windows.
  const auto symphony = symphony_demo_timeline(Duration::seconds(1));
  ASSERT_TRUE(std::ranges::any_of(symphony.spans, [](const auto& s) { return s.window_close > s.window_open; }));
  expect_same_timeline(packed_round_trip(symphony), symphony);
  // Drops with and without their request, a preempted batch, and times the µs rows would round.
  auto small = test::small_timeline();
  small.drops.push_back({Duration::nanoseconds(12'345), 0, DropReason::WorkerLost, std::nullopt, std::nullopt, {}});
  small.spans[1].preempted = true;
  small.spans[2].start = Duration::nanoseconds(25'001);
  small.requests[3].deadline = Duration::nanoseconds(-7);  // an earlier origin: negative times
  const auto back = packed_round_trip(small);
  expect_same_timeline(back, small);
  EXPECT_EQ(back.requests_of(1)[0].id, 102u);
  // A timeline with no requests listed reads back with none, as its rows form does.
  auto bare = small;
  bare.requests.clear();
  const auto bare_back = packed_round_trip(bare);
  EXPECT_TRUE(bare_back.requests.empty());
  EXPECT_TRUE(bare_back.requests_of(0).empty());
}

// The reason for packing: the 2 s Symphony demo keeps about 5,000 batches, 30,000 requests and
// 23,000 queue samples. Packed, they take under a quarter of their compact rows (measured: 365 KB
// against 1.71 MB, and 3.81 MB as a project indents them). Most of what is left is the entropy of
// nanosecond arrival and sample times.
TEST(TimelinePacking, IsAFractionOfTheRows) {
  const auto t = symphony_demo_timeline(Duration::seconds(2));
  ASSERT_GT(t.spans.size(), 2000u);
  const auto rows = to_json(t).dump().size();
  const auto packed = to_json(t, TimelineEncoding::Packed).dump().size();
  EXPECT_LT(packed * 4, rows) << packed << " packed against " << rows << " as rows";
}

void expect_refused(const nlohmann::json& file, const std::string& where, const std::string& why) {
  try {
    (void)timeline_from_json(file, "p.json");
    ADD_FAILURE() << "accepted; expected an error at " << where;
  } catch (const InputError& e) {
    EXPECT_EQ(e.file(), "p.json");
    EXPECT_EQ(e.where(), where) << e.what();
    EXPECT_NE(e.reason().find(why), std::string::npos) << e.what();
  } catch (const std::exception& e) {
    ADD_FAILURE() << "not an InputError: " << e.what();
  }
}

// A packed timeline whose unpacked bytes are `raw` (declared honestly).
nlohmann::json with_raw(std::string_view raw) {
  auto j = to_json(test::small_timeline(), TimelineEncoding::Packed);
  j["packed"]["bytes"] = raw.size();
  j["packed"]["data"] = pack_bytes(raw);
  return j;
}

TEST(TimelinePacking, BrokenPackedTextSaysWhere) {
  const auto good = to_json(test::small_timeline(), TimelineEncoding::Packed);
  const auto edited = [&](const std::function<void(nlohmann::json&)>& edit) {
    auto j = good;
    edit(j);
    return j;
  };
  expect_refused(edited([](auto& j) { j["packed"]["encoding"] = "columns-2+zstd"; }), "$.packed.encoding",
                 "a newer ServeScope");
  expect_refused(edited([](auto& j) { j["packed"]["data"] = "abc"; }), "$.packed.data", "not a multiple of 4");
  expect_refused(edited([](auto& j) { j["packed"]["data"] = "ab*d"; }), "$.packed.data", "is not base64");
  expect_refused(edited([](auto& j) { j["packed"]["data"] = "AAAA"; }), "$.packed.data", "not a zlib stream");
  expect_refused(edited([](auto& j) { j["packed"]["bytes"] = j["packed"]["bytes"].template get<int>() + 1; }),
                 "$.packed.data", "it declares");
  expect_refused(edited([](auto& j) { j["packed"]["bytes"] = j["packed"]["bytes"].template get<int>() - 1; }),
                 "$.packed.data", "holds more than");
  expect_refused(edited([](auto& j) { j["packed"]["bytes"] = std::uint64_t{1} << 40; }), "$.packed.bytes",
                 "expected an integer");
  expect_refused(edited([](auto& j) { j["packed"]["extra"] = 1; }), "$.packed.extra", "unknown member");
  expect_refused(edited([](auto& j) { j["spans"] = nlohmann::json::array(); }), "$.packed", "not both");
  // Rows that name a slot or model the layout lacks.
  expect_refused(edited([](auto& j) { j["gpus"] = {"gpu0/v0"}; }), "$.packed.data", "GPU slot is 1");
  expect_refused(edited([](auto& j) { j["models"] = nlohmann::json::array(); }), "$.packed.data",
                 "the timeline has none");
}

TEST(TimelinePacking, HostileTablesAreRefusedBeforeTheyAllocate) {
  // Counts the remaining bytes cannot hold.
  VarintWriter w;
  w.varint(0);
  w.varint(std::uint64_t{1} << 40);  // a trillion batches in a few bytes
  expect_refused(with_raw(w.bytes()), "$.packed.data", "more than their");
  // Tables cut short, and bytes after them.
  VarintWriter cut;
  cut.varint(0);
  cut.varint(1);
  cut.raw(std::string(9, '\0'));  // one batch, then no count of transfers
  expect_refused(with_raw(cut.bytes()), "$.packed.data", "end early");
  VarintWriter empty_tables;
  for (int k = 0; k < 6; ++k)
    empty_tables.varint(0);
  EXPECT_NO_THROW((void)timeline_from_json(with_raw(empty_tables.bytes()), "p.json"));
  VarintWriter trailing = empty_tables;
  trailing.varint(7);
  expect_refused(with_raw(trailing.bytes()), "$.packed.data", "bytes follow the packed tables");
  // A varint longer than 64 bits.
  expect_refused(with_raw(std::string(11, '\xff')), "$.packed.data", "does not fit 64 bits");
  // A start time far beyond any run.
  VarintWriter far;
  far.varint(0);
  far.varint(1);
  far.varint(0);                             // gpu
  far.varint(0);                             // model
  far.signed_varint(1);                      // batch
  far.signed_varint(std::int64_t{1} << 62);  // start, ns
  far.raw(std::string(16, '\0'));
  expect_refused(with_raw(far.bytes()), "$.packed.data", "beyond");
  // A request count that is not the batches' (two requests where the batch carries one).
  VarintWriter requests;
  requests.varint(0);
  requests.varint(1);
  for (int k = 0; k < 9; ++k)  // gpu, model, batch, start, length, size, preempted, late, first
    requests.varint(k == 5 ? 1 : 0);
  requests.varint(0);  // transfers
  requests.varint(0);  // queue
  requests.varint(2);
  requests.raw(std::string(8, '\0'));
  expect_refused(with_raw(requests.bytes()), "$.packed.data", "hold 2 requests; the batches carry 1");
  // A deflate bomb: 8 MiB of zeros in about 8 KiB, declared as 1 KiB, stops at 1 KiB + 1.
  auto bomb = with_raw(std::string(1024, '\0'));
  bomb["packed"]["data"] = pack_bytes(std::string(std::size_t{8} << 20, '\0'));
  expect_refused(bomb, "$.packed.data", "holds more than the 1024 bytes");
  // A bomb's batch count is refused from the head of its data, before the rest is inflated: here
  // the rest is not even there, and what is said is the budget, not the bytes that are missing.
  VarintWriter head;
  head.varint(0);
  head.varint(22'000'000);
  auto early = with_raw(head.bytes());
  early["packed"]["bytes"] = kMaxUnpackedTimelineBytes;
  expect_refused(early, "$.packed.data", "the packed tables declare 22000000 batches, which would take");
  expect_refused(early, "$.packed.data", "(unpacked byte 5 of 201326592)");
  // A count the declared bytes cannot hold is left to the whole check, which says so.
  early["packed"]["bytes"] = 1024;
  expect_refused(early, "$.packed.data", "holds 5 bytes; it declares 1024");
}

TEST(KeptTimeline, PacksRowsAndKeepsWithinBudget) {
  Project project;
  SavedArtifact run;
  run.name = "a";
  run.body = {{"kind", "run-result"}, {"timeline", to_json(test::small_timeline())}};
  // A timeline kept as rows (an imported CLI run file) is packed on the way in.
  EXPECT_EQ(fit_kept_timeline(run, project), "");
  ASSERT_TRUE(run.body["timeline"].contains("packed"));
  expect_same_timeline(timeline_from_json(run.body["timeline"], "a"), test::small_timeline());
  const auto bytes = kept_timeline_bytes(run);
  EXPECT_EQ(bytes, run.body["timeline"]["packed"]["data"].get_ref<const std::string&>().size());
  project.runs.push_back(run);

  // Over one run's budget, or the project's: the metrics stay, the timeline goes, with the reason.
  auto big = run;
  EXPECT_NE(fit_kept_timeline(big, project, {bytes - 1, 1 << 30}).find("over the"), std::string::npos);
  EXPECT_FALSE(big.body.contains("timeline"));
  EXPECT_EQ(big.body["kind"], "run-result");
  auto second = run;
  EXPECT_NE(fit_kept_timeline(second, project, {bytes, 2 * bytes - 1}).find("would pass"), std::string::npos);
  EXPECT_FALSE(second.body.contains("timeline"));
  auto fits = run;
  EXPECT_EQ(fit_kept_timeline(fits, project, {bytes, 2 * bytes}), "");
  EXPECT_TRUE(fits.body.contains("timeline"));
  // A run without a timeline, and a broken one, which names the run.
  SavedArtifact none;
  none.body = {{"kind", "run-result"}};
  EXPECT_EQ(fit_kept_timeline(none, project), "");
  EXPECT_EQ(kept_timeline_bytes(none), 0u);
  auto broken = run;
  broken.body["timeline"] = {{"kind", "timeline"}};
  EXPECT_THROW((void)fit_kept_timeline(broken, project), InputError);
}

}  // namespace
}  // namespace servescope::engine
