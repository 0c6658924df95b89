// The live protocol's binary payloads and run-event stream: round trips, refusals of malformed
// payloads with the field named, the event stream folding into the simulator's recorders
// exactly as the hooks were called, and the emulated executor's per-slot order.
#include <algorithm>
#include <gtest/gtest.h>

#include "engine/live/byte_codec.h"
#include "engine/live/event_stream.h"
#include "engine/live/live_run.h"
#include "engine/live/messages.h"
#include "engine/live/wire_format.h"
#include "engine/live/worker_executor.h"

namespace live = servescope::engine::live;
using servescope::Duration;
using servescope::engine::Batch;
using servescope::engine::DropReason;
using servescope::engine::kMaxNoticeTextBytes;
using servescope::engine::kNoticeKindCount;
using servescope::engine::NoticeKind;
using servescope::engine::Request;
using servescope::engine::SimulationResult;
using servescope::engine::Transfer;

namespace {

Request request(std::uint64_t id, std::uint32_t model, std::int64_t arrival_us) {
  return Request{id, model, 0, Duration::microseconds(arrival_us), Duration::microseconds(arrival_us + 10'000)};
}

SimulationResult two_model_run() {
  SimulationResult r;
  r.system = "symphony";
  r.models = {"a", "b"};
  r.model_slo = {Duration::milliseconds(10), Duration::milliseconds(20)};
  r.gpus = {"s0/gpu0", "s0/gpu1", "s1/gpu0"};
  r.gpu_types = {"A100", "A100", "A100"};
  r.gpu_shares = {"1", "1", "1"};
  r.gpu_physical = {0, 1, 2};
  r.gpu_server = {0, 0, 1};
  r.gpu_duty_cycle = {Duration(), Duration(), Duration()};
  r.server_names = {"s0", "s1"};
  return r;
}

}  // namespace

TEST(LiveMessages, RequestsAndOutcomesRoundTrip) {
  const std::vector<live::ClientRequest> in{{1, 0, 0}, {2, 1, 3}, {~0ull, 7, 9}};
  const auto out = live::decode_requests(live::encode_requests(in));
  ASSERT_EQ(out.size(), 3u);
  EXPECT_EQ(out[2].client_id, ~0ull);
  EXPECT_EQ(out[1].target, 3u);
  const std::vector<live::ClientOutcome> outcomes{{5, live::OutcomeStatus::Dropped, DropReason::WorkerLost, 123},
                                                  {6, live::OutcomeStatus::Late, DropReason::DeadlineUnreachable, -4}};
  const auto back = live::decode_outcomes(live::encode_outcomes(outcomes));
  ASSERT_EQ(back.size(), 2u);
  EXPECT_EQ(back[0].reason, DropReason::WorkerLost);
  EXPECT_EQ(back[1].status, live::OutcomeStatus::Late);
  EXPECT_EQ(back[1].latency_ns, -4);
}

TEST(LiveMessages, OrdersAndReportsRoundTrip) {
  const live::RunOrder run{.batch = 9,
                           .slot = 2,
                           .model = 1,
                           .kernel = 3,
                           .block_begin = 4,
                           .block_end = 7,
                           .start_in_ns = 1000,
                           .run_ns = 2'500'000,
                           .requests = {11, 12, 40, 41, 42, 43, 44, ~0ull}};
  const auto r = std::get<live::RunOrder>(live::decode_order(live::encode_order(run)));
  EXPECT_EQ(r.batch, 9u);
  EXPECT_EQ(r.size(), 8u);
  EXPECT_EQ(r.requests, run.requests);
  EXPECT_EQ(r.block_begin, 4u);
  EXPECT_EQ(r.block_end, 7u);
  EXPECT_EQ(r.run_ns, 2'500'000);
  const live::SendOrder send{.transfer = 4,
                             .from_slot = 0,
                             .to_slot = 2,
                             .bytes = 1 << 20,
                             .start_in_ns = 50,
                             .peer_host = "10.0.0.7",
                             .peer_port = 41234,
                             .model = 1,
                             .boundary = 7,
                             .requests = {11, 12}};
  const auto s = std::get<live::SendOrder>(live::decode_order(live::encode_order(send)));
  EXPECT_EQ(s.peer_host, "10.0.0.7");
  EXPECT_EQ(s.peer_port, 41234);
  EXPECT_EQ(s.bytes, 1u << 20);
  EXPECT_EQ(s.boundary, 7u);
  EXPECT_EQ(s.requests, send.requests);
  const auto ran = std::get<live::RunReport>(live::decode_report(live::encode_report(live::RunReport{9, 2, 77})));
  EXPECT_EQ(ran.run_ns, 77);
  const auto got = std::get<live::ReceiveReport>(live::decode_report(live::encode_report(live::ReceiveReport{4, 99})));
  EXPECT_EQ(got.bytes, 99u);
  const auto failed =
      std::get<live::SendFailedReport>(live::decode_report(live::encode_report(live::SendFailedReport{4, "gone"})));
  EXPECT_EQ(failed.reason, "gone");
  const auto pattern = live::feature_map_pattern(4, 0, 600);
  const auto fm = live::encode_feature_map(send, 1000, pattern);
  EXPECT_EQ(fm.size(), 8u + 8u + 4u + 4u + 4u + 2 * 8u + 600u);
  const auto h = live::decode_feature_map(fm);
  EXPECT_EQ(h.transfer, 4u);
  EXPECT_EQ(h.total_bytes, 1000u);
  EXPECT_EQ(h.boundary, 7u);
  EXPECT_EQ(h.requests, send.requests);
  ASSERT_EQ(h.chunk.size(), 600u);
  EXPECT_TRUE(std::ranges::equal(h.chunk, pattern));
  // The pattern continues where a chunk left off, so chunks of one map make the same bytes.
  EXPECT_EQ(live::feature_map_pattern(4, 100, 1)[0], pattern[100]);
  std::vector<std::uint8_t> reused(100);
  live::fill_feature_map_pattern(reused, 4, 300);
  EXPECT_TRUE(std::ranges::equal(reused, std::span(pattern).subspan(300, 100)));
  // A sender appends the header and the bytes apart: the same frames as the whole payload's.
  live::FrameEncoder whole, parts;
  std::vector<std::uint8_t> appended;
  parts.append(appended, live::FrameType::FeatureMap, live::encode_feature_map_header(send, 1000), pattern);
  parts.append(appended, live::FrameType::Heartbeat, {});
  auto expected = whole.encode(live::FrameType::FeatureMap, fm);
  const auto heartbeat = whole.encode(live::FrameType::Heartbeat, std::span<const std::uint8_t>{});
  expected.insert(expected.end(), heartbeat.begin(), heartbeat.end());
  EXPECT_EQ(appended, expected);
}

TEST(LiveMessages, MalformedPayloadsAreRefusedWithTheField) {
  auto bytes = live::encode_requests(std::vector<live::ClientRequest>{{1, 0, 0}});
  bytes.pop_back();
  try {
    live::decode_requests(bytes);
    FAIL() << "a cut request frame was accepted";
  } catch (const live::ProtocolError& e) {
    EXPECT_NE(std::string(e.what()).find("request count says 1 records but only 15 bytes"), std::string::npos)
        << e.what();
  }
  // A count that the payload cannot hold is refused before anything is allocated for it.
  std::vector<std::uint8_t> huge{0xff, 0xff, 0xff, 0xff};
  EXPECT_THROW(live::decode_requests(huge), live::ProtocolError);
  EXPECT_THROW(live::decode_outcomes(huge), live::ProtocolError);
  // Trailing bytes, unknown kinds, unknown reasons, negative times.
  bytes = live::encode_requests(std::vector<live::ClientRequest>{{1, 0, 0}});
  bytes.push_back(0);
  EXPECT_THROW(live::decode_requests(bytes), live::ProtocolError);
  EXPECT_THROW(live::decode_order(std::vector<std::uint8_t>{9}), live::ProtocolError);
  EXPECT_THROW(live::decode_report(std::vector<std::uint8_t>{}), live::ProtocolError);
  auto outcome = live::encode_outcomes(std::vector<live::ClientOutcome>{{1, live::OutcomeStatus::Dropped}});
  outcome[4 + 8 + 1] = 42;  // the drop reason
  EXPECT_THROW(live::decode_outcomes(outcome), live::ProtocolError);
  auto order = live::encode_order(live::RunOrder{.batch = 1, .run_ns = 5, .requests = {1}});
  for (std::size_t i = order.size() - 12 - 8; i < order.size() - 12; ++i)
    order[i] = 0xff;  // run time −1 (before the request count and the one id)
  EXPECT_THROW(live::decode_order(order), live::ProtocolError);
  // A batch of nobody, an empty block range and a request count past the payload.
  EXPECT_THROW(live::decode_order(live::encode_order(live::RunOrder{.batch = 1, .run_ns = 5, .requests = {}})),
               live::ProtocolError);
  EXPECT_THROW(live::decode_order(live::encode_order(
                   live::RunOrder{.batch = 1, .block_begin = 3, .block_end = 3, .run_ns = 5, .requests = {1}})),
               live::ProtocolError);
  order = live::encode_order(live::RunOrder{.batch = 1, .run_ns = 5, .requests = {1}});
  order[order.size() - 12] = 0xff;  // the request count's low byte: 255 ids in 8 bytes
  EXPECT_THROW(live::decode_order(order), live::ProtocolError);
}

TEST(LiveEvents, ReplayCallsTheSameHooksAndFoldsLikeTheSimulator) {
  live::EventEncoder encoder;
  Batch batch;
  batch.id = 3;
  batch.model = 1;
  batch.gpu = 2;
  batch.start = Duration::microseconds(100);
  batch.predicted_end = Duration::microseconds(400);
  batch.requests = {request(1, 1, 10), request(2, 1, 20)};
  encoder.on_arrival(batch.requests[0]);
  encoder.on_arrival(batch.requests[1]);
  encoder.on_arrival(request(3, 0, 30));
  encoder.on_dispatch(batch, Duration::microseconds(90));
  encoder.on_drop(request(3, 0, 30), DropReason::WindowDrop, Duration::microseconds(95));
  encoder.on_batch(batch, Duration::microseconds(100), Duration::microseconds(420), true);
  encoder.on_complete(batch.requests[0], Duration::microseconds(100), Duration::microseconds(420));
  encoder.on_complete(batch.requests[1], Duration::microseconds(100), Duration::microseconds(420));
  Transfer t;
  t.id = 8;
  t.from_gpu = 0;
  t.to_gpu = 2;
  t.bytes = 4096;
  encoder.on_transfer(t, Duration::microseconds(50), Duration::microseconds(60));
  EXPECT_EQ(encoder.records(), 9u);

  live::LiveRun run(two_model_run(), Duration());
  run.apply(encoder.take());
  EXPECT_EQ(run.events(), 9u);
  EXPECT_EQ(run.latest(), Duration::microseconds(420));
  const auto snapshot = run.snapshot();
  ASSERT_EQ(snapshot.timeline.size(), 1u);
  EXPECT_EQ(snapshot.timeline[0].gpu, 2u);
  EXPECT_EQ(snapshot.timeline[0].size, 2u);
  ASSERT_EQ(snapshot.transfers.size(), 1u);
  EXPECT_EQ(snapshot.transfers[0].bytes, 4096u);
  ASSERT_EQ(snapshot.drops.size(), 1u);
  EXPECT_EQ(snapshot.drops[0].reason, DropReason::WindowDrop);
  const auto total = snapshot.metrics->total();
  EXPECT_EQ(total.arrivals, 3u);
  EXPECT_EQ(total.on_time, 2u);
  EXPECT_EQ(total.dropped, 1u);
  EXPECT_EQ(snapshot.duration, Duration::microseconds(420));
}

TEST(LiveEvents, RecordsNamingModelsOrGpusTheRunLacksAreRefused) {
  live::LiveRun run(two_model_run(), Duration());
  live::EventEncoder encoder;
  encoder.on_arrival(request(1, 5, 0));
  EXPECT_THROW(run.apply(encoder.take()), live::ProtocolError);
  Batch b;
  b.gpu = 3;
  encoder.on_batch(b, Duration(), Duration(), true);
  EXPECT_THROW(run.apply(encoder.take()), live::ProtocolError);
  // A cut record.
  encoder.on_arrival(request(1, 0, 0));
  auto bytes = encoder.take();
  ASSERT_GT(bytes.size(), 3u);
  // erase, not resize: GCC 12 at -O1 under ASan cannot rule out the growing path of resize and
  // refuses it (-Wstringop-overflow).
  bytes.erase(bytes.end() - 3, bytes.end());
  EXPECT_THROW(run.apply(bytes), live::ProtocolError);
  EXPECT_THROW(run.apply(std::vector<std::uint8_t>{77}), live::ProtocolError);
  // Times from the future: past the scheduler's clock, or (without one) an hour past the latest.
  encoder.on_arrival(request(1, 0, 0));
  run.apply(encoder.take());
  encoder.on_arrival(request(2, 0, 5'000'000'000));  // 5,000 s
  EXPECT_THROW(run.apply(encoder.take()), live::ProtocolError);
  run.set_horizon(Duration::seconds(5));
  encoder.on_arrival(request(3, 0, 20'000'000));  // 20 s: more than 10 s past the scheduler's now
  EXPECT_THROW(run.apply(encoder.take()), live::ProtocolError);
  encoder.on_arrival(request(4, 0, 5'000'000));
  EXPECT_NO_THROW(run.apply(encoder.take()));
  // A batch that ends before it starts.
  Batch back;
  encoder.on_batch(back, Duration::microseconds(10), Duration::microseconds(5), true);
  EXPECT_THROW(run.apply(encoder.take()), live::ProtocolError);
}

// What the scheduler says of itself travels with the events: the run keeps it on its own clock,
// with the slots it concerns; one naming a slot the run lacks, an unknown kind or an overlong
// text is refused.
TEST(LiveEvents, NoticesTravelWithTheRunAndBadOnesAreRefused) {
  live::EventEncoder encoder;
  encoder.on_arrival(request(1, 0, 1'000'000));
  encoder.on_notice({Duration::milliseconds(1500), NoticeKind::WorkerLost, "worker of s2 lost (closed)", {1, 2}});
  encoder.on_notice({Duration::milliseconds(1700), NoticeKind::PlanSwitched, "switched to nexus", {}});
  EXPECT_EQ(encoder.records(), 3u);
  live::LiveRun run(two_model_run(), Duration(), Duration::seconds(1), Duration::milliseconds(500));
  run.apply(encoder.take());
  const auto notices = run.snapshot().notices;
  ASSERT_EQ(notices.size(), 2u);
  EXPECT_EQ(notices[0].time, Duration::milliseconds(1000));  // on the run's clock, from its origin
  EXPECT_EQ(notices[0].kind, NoticeKind::WorkerLost);
  EXPECT_EQ(notices[0].text, "worker of s2 lost (closed)");
  EXPECT_EQ(notices[0].gpus, (std::vector<std::uint32_t>{1, 2}));
  EXPECT_EQ(notices[1].kind, NoticeKind::PlanSwitched);
  EXPECT_TRUE(notices[1].gpus.empty());

  encoder.on_notice({Duration::milliseconds(1800), NoticeKind::WorkerLate, "late", {9}});
  EXPECT_THROW(run.apply(encoder.take()), live::ProtocolError);
  encoder.on_notice({Duration::milliseconds(1800), NoticeKind::WorkerLate, "late", {}});
  auto bytes = encoder.take();
  bytes[1 + 8] = kNoticeKindCount;  // after the kind byte and the time
  EXPECT_THROW(run.apply(bytes), live::ProtocolError);
  // The encoder sends a bounded prefix of a long line; a frame that claims more is refused.
  encoder.on_notice({Duration::milliseconds(1800), NoticeKind::Refused, std::string(10'000, 'x'), {}});
  run.apply(encoder.take());
  EXPECT_EQ(run.snapshot().notices.back().text.size(), kMaxNoticeTextBytes);
  std::vector<std::uint8_t> forged;
  live::ByteWriter w(forged);
  w.u8(7);
  w.i64(Duration::milliseconds(1800).count_ns());
  w.u8(0);
  w.text(std::string(kMaxNoticeTextBytes + 1, 'y'));
  w.u32(0);
  EXPECT_THROW(run.apply(forged), live::ProtocolError);
}

TEST(LiveRunDescription, RoundTripsThroughTheWelcome) {
  auto r = two_model_run();
  r.latency_quantile = 0.99;
  r.sampled_runtime = true;
  const auto back = live::run_from_description(live::describe_run(r), "welcome");
  EXPECT_DOUBLE_EQ(back.latency_quantile, 0.99) << "a recorded run says what it reserved at";
  EXPECT_TRUE(back.sampled_runtime);
  EXPECT_EQ(back.models, r.models);
  EXPECT_EQ(back.model_slo, r.model_slo);
  EXPECT_EQ(back.gpus, r.gpus);
  EXPECT_EQ(back.gpu_server, r.gpu_server);
  EXPECT_EQ(back.server_names, r.server_names);
  auto bad = live::describe_run(r);
  bad["gpus"][0]["server"] = 9;
  EXPECT_THROW(live::run_from_description(bad, "welcome"), servescope::InputError);
  // A description from before the two fields reads as medians, not drawn.
  auto old = live::describe_run(r);
  old.erase("latency_quantile");
  old.erase("sampled_runtime");
  EXPECT_EQ(live::run_from_description(old, "welcome").latency_quantile, 0.0);
}

TEST(EmulatedExecutor, RunsEachSlotInOrderNotBeforeItsStart) {
  live::EmulatedExecutor exec;
  const auto t0 = live::SteadyClock::now();
  exec.submit(live::RunOrder{.batch = 1, .slot = 0, .run_ns = 1'000'000, .requests = {1}}, t0);
  exec.submit(live::RunOrder{.batch = 2, .slot = 0, .run_ns = 1'000'000, .requests = {2}}, t0);
  exec.submit(live::RunOrder{.batch = 3, .slot = 1, .start_in_ns = 500'000, .run_ns = 1'000'000, .requests = {3}}, t0);
  EXPECT_EQ(exec.queued(), 3u);
  EXPECT_TRUE(exec.finished(t0 + std::chrono::microseconds(999)).empty());
  auto done = exec.finished(t0 + std::chrono::microseconds(1000));
  ASSERT_EQ(done.size(), 1u);
  EXPECT_EQ(done[0].batch, 1u);
  // Slot 1 waited 0.5 ms for its start; slot 0's second batch ran back to back with its first.
  done = exec.finished(t0 + std::chrono::microseconds(2000));
  ASSERT_EQ(done.size(), 2u);
  EXPECT_EQ(done[0].batch, 3u);
  EXPECT_EQ(done[1].batch, 2u);
  EXPECT_EQ(done[1].run_ns, 1'000'000);
  EXPECT_FALSE(exec.next_event());
  EXPECT_THROW(live::EmulatedExecutor(1.5), servescope::QueryError);
}
