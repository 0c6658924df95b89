// The simulator's NIC links and the per-request log: a two-stage pipeline whose feature map
// crosses servers, checked against hand-computed times.
#include <gtest/gtest.h>
#include <sstream>

#include "engine/dataplane/network_links.h"
#include "engine/sim/request_log.h"
#include "engine/sim/simulator.h"
#include "tests/support/durations.h"
#include "tests/support/printers.h"

using namespace servescope;
using namespace servescope::engine;

namespace {

using ::servescope::test::ms;

// Two stages: stage 0 on GPU 0, its output (1 MB per request) sent to GPU 1, stage 1 there.
class TwoStagePipeline final : public DataPlane {
 public:
  std::string name() const override { return "two-stage"; }
  void start(DataPlaneContext& context) override { ctx_ = &context; }
  void on_request(const Request& r) override {
    Batch b;
    b.id = next_++;
    b.gpu = 0;
    b.start = ctx_->clock.now();
    b.requests = {r};
    b.final_stage = false;
    carried_ = {r};
    ctx_->executor.execute(std::move(b));
  }
  void on_timer(std::uint64_t) override {}
  void on_batch_done(const BatchDone& done) override {
    if (done.gpu != 0) return;
    Transfer t;
    t.id = done.id;
    t.from_gpu = 0;
    t.to_gpu = 1;
    t.bytes = std::uint64_t{1'000'000} * done.size;
    t.batch = done.id;
    t.requests = carried_;
    ctx_->executor.transfer(std::move(t));
  }
  void on_transfer_done(const TransferDone& done) override {
    transfers.push_back(done);
    Batch b;
    b.id = next_++;
    b.gpu = 1;
    b.stage = 1;
    b.start = done.end + stage1_lead;
    b.requests = carried_;
    ctx_->executor.execute(std::move(b));
  }
  std::vector<TransferDone> transfers;
  Duration stage1_lead{};  // how far ahead of its start stage 1 is ordered

 private:
  DataPlaneContext* ctx_ = nullptr;
  BatchId next_ = 1;
  std::vector<Request> carried_;  // one request in flight at a time in these tests
};

struct Completions final : RunRecorder {
  std::vector<std::pair<RequestId, Time>> done;
  void on_complete(const Request& r, Time, Time end) override { done.emplace_back(r.id, end); }
};

}  // namespace

TEST(NetworkLinks, BytesOverTheSlowerLinkAndOneTransferAtATimePerLink) {
  // Server 0 sends at 8 Gbps, server 1 receives at 4 Gbps, server 2 at 8 Gbps; two GPUs on server 0.
  NetworkLinks net({{8, 8}, {8, 4}, {8, 8}}, {0, 0, 1, 2});
  // 1 MB = 8 Mbit: 2 ms at 4 Gbps, 1 ms at 8 Gbps.
  const auto a = net.reserve(0, 2, 1'000'000, ms(0));
  EXPECT_EQ(a.start, ms(0));
  EXPECT_EQ(a.end, ms(2));
  // Same sender uplink: waits for the first transfer even though server 2's downlink is free.
  const auto b = net.reserve(1, 3, 1'000'000, ms(0.5));
  EXPECT_EQ(b.start, ms(2));
  EXPECT_EQ(b.end, ms(3));
  // Inside one server: instant, no link held.
  const auto c = net.reserve(0, 1, 1'000'000, ms(1));
  EXPECT_EQ(c.start, ms(1));
  EXPECT_EQ(c.end, ms(1));
  EXPECT_EQ(net.uplink_free(0), ms(3));
  EXPECT_EQ(net.downlink_free(1), ms(2));
  EXPECT_THROW(NetworkLinks({{0, 1}}, {0}), std::invalid_argument);
  EXPECT_THROW(NetworkLinks({{1, 1}}, {1}), std::invalid_argument);
}

TEST(Simulator, PipelineStagesCompleteARequestOnlyAtTheLastStageAfterItsTransfer) {
  // ℓ0 = 5 ms on GPU 0 (server 0), 1 MB at 8 Gbps = 1 ms, ℓ1 = 3 ms on GPU 1 (server 1).
  const auto l0 = BatchLatency::linear(Duration(), ms(5), 8), l1 = BatchLatency::linear(Duration(), ms(3), 8);
  ExecutionTimes times({{l0, l1}}, {0, 1});
  ListArrivals arrivals({{ms(0), 0, 0, ms(100)}});
  TwoStagePipeline plane;
  Completions completions;
  TimelineRecorder timeline;
  std::ostringstream log;
  RequestLogRecorder request_log(log, {"m"}, {"a/gpu0", "b/gpu0"});
  RecorderFanout fanout;
  fanout.add(completions);
  fanout.add(timeline);
  fanout.add(request_log);
  Simulator sim(2, std::move(times), arrivals, plane, fanout);
  sim.set_network(NetworkLinks({{8, 8}, {8, 8}}, {0, 1}));
  sim.run();
  ASSERT_EQ(plane.transfers.size(), 1u);
  EXPECT_EQ(plane.transfers[0].start, ms(5));
  EXPECT_EQ(plane.transfers[0].end, ms(6));
  ASSERT_EQ(completions.done.size(), 1u);
  EXPECT_EQ(completions.done[0].second, ms(9));
  ASSERT_EQ(timeline.spans().size(), 2u);
  ASSERT_EQ(timeline.transfers().size(), 1u);
  EXPECT_EQ(timeline.transfers()[0].bytes, 1'000'000u);

  const std::string text = log.str();
  EXPECT_EQ(text.substr(0, text.find('\n')), "event,request,model,time_us,end_us,gpu,batch,detail");
  EXPECT_NE(text.find("arrival,1,m,0,100000,,,\n"), std::string::npos) << text;
  EXPECT_NE(text.find("dispatch,1,m,0,0,a/gpu0,1,stage 0; size 1\n"), std::string::npos) << text;
  EXPECT_NE(text.find("run,1,m,0,5000,a/gpu0,1,stage 0\n"), std::string::npos) << text;
  EXPECT_NE(text.find("transfer,1,m,5000,6000,a/gpu0,1,to b/gpu0; 1000000 bytes\n"), std::string::npos) << text;
  EXPECT_NE(text.find("run,1,m,6000,9000,b/gpu0,2,stage 1\n"), std::string::npos) << text;
  EXPECT_NE(text.find("complete,1,m,9000,,,,on time\n"), std::string::npos) << text;
}

namespace {

// Sends the first two requests to GPU 0 at once; keeps the third and sends it from on_batch_done
// of the first batch.
class DispatchOnDone final : public DataPlane {
 public:
  std::string name() const override { return "dispatch-on-done"; }
  void start(DataPlaneContext& context) override { ctx_ = &context; }
  void on_request(const Request& r) override {
    if (next_ <= 2)
      send(r);
    else
      held_ = r;
  }
  void on_timer(std::uint64_t) override {}
  void on_batch_done(const BatchDone& done) override {
    ++done_;
    if (done.id == 1) send(held_);
  }
  int done_ = 0;

 private:
  void send(const Request& r) {
    Batch b;
    b.id = next_++;
    b.gpu = 0;
    b.start = ctx_->clock.now();
    b.requests = {r};
    ctx_->executor.execute(std::move(b));
  }
  DataPlaneContext* ctx_ = nullptr;
  BatchId next_ = 1;
  Request held_;
};

}  // namespace

TEST(Simulator, ABatchDispatchedFromBatchDoneDoesNotDisplaceTheQueuedOne) {
  // Batches 1 and 2 queue on GPU 0; when 1 finishes the data plane sends batch 3 at once. The GPU
  // must then run 2 (queued first) and 3, not lose whichever started first.
  ExecutionTimes times({{BatchLatency::linear(Duration(), ms(5), 8)}}, {0});
  ListArrivals arrivals({{ms(0), 0, 0, ms(100)}, {ms(0), 0, 0, ms(100)}, {ms(1), 0, 0, ms(100)}});
  DispatchOnDone plane;
  TimelineRecorder timeline;
  Simulator sim(1, std::move(times), arrivals, plane, timeline);
  sim.run();
  EXPECT_EQ(plane.done_, 3);
  ASSERT_EQ(timeline.spans().size(), 3u);
  EXPECT_EQ(timeline.spans()[2].end, ms(15));
}

TEST(Simulator, DrawsTheLiveLoopsHopsForOrdersAndTransfers) {
  // As above, with every batch hop 0.4 ms and every transfer 0.25 ms beyond its link's time.
  const auto l0 = BatchLatency::linear(Duration(), ms(5), 8), l1 = BatchLatency::linear(Duration(), ms(3), 8);
  const auto constant = [](Duration d) {
    return LatencyDistribution{std::vector<Duration>(kDistributionLevels.size(), d), 100};
  };
  // Each stage-0 batch is ordered to start at once: the first starts a hop later; the second,
  // arriving while the first runs, had its order at the worker long before the slot freed.
  ListArrivals arrivals({{ms(0), 0, 0, ms(100)}, {ms(1), 0, 0, ms(100)}});
  TwoStagePipeline plane;
  plane.stage1_lead = ms(1);  // ordered ahead by more than its order takes: not held
  TimelineRecorder timeline;
  Simulator sim(2, ExecutionTimes({{l0, l1}}, {0, 1}), arrivals, plane, timeline);
  sim.set_network(NetworkLinks({{8, 8}, {8, 8}}, {0, 1}));
  sim.set_hops(LiveHops{constant(Duration::microseconds(400)), constant(Duration::microseconds(250)), 7});
  sim.run();
  std::vector<std::pair<Time, Time>> gpu0, gpu1;
  for (const auto& s : timeline.spans())
    (s.gpu == 0 ? gpu0 : gpu1).emplace_back(s.start, s.end);
  ASSERT_EQ(gpu0.size(), 2u);
  EXPECT_EQ(gpu0[0], std::pair(ms(0.4), ms(5.4)));
  EXPECT_EQ(gpu0[1], std::pair(ms(5.4), ms(10.4)));
  ASSERT_GE(plane.transfers.size(), 1u);
  // The link is held 1 ms from the batch's end; the feature map is there 0.25 ms after.
  EXPECT_EQ(plane.transfers[0].start, ms(5.4));
  EXPECT_EQ(plane.transfers[0].end, ms(6.65));
  ASSERT_GE(gpu1.size(), 1u);
  EXPECT_EQ(gpu1[0], std::pair(ms(7.65), ms(10.65)));
}
