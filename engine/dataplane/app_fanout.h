// Application requests over a model data plane (glet seed 003 §5.2, Piccolo seed 001 §2): an
// application request starts its source modules as requests of their models; a finished module
// starts every successor whose inputs are all in; a CPU step just takes its time; the request
// completes when its last sink finishes and is dropped as soon as any of its modules is.
#pragma once

#include <map>
#include <memory>
#include <optional>
#include <queue>
#include <vector>

#include "engine/dataplane/data_plane.h"

namespace servescope::engine {

struct AppGraph {
  std::uint32_t request_model = 0;  // the model index application requests arrive as
  struct Node {
    std::optional<std::uint32_t> model;  // a DNN module's model; none for a CPU step
    Duration cpu;                        // a CPU step's cost
    // Requests a DNN module receives per application request (a detector's objects per frame,
    // Piccolo seed 001 §1.1): the module runs floor or ceil of it each time, exact on average.
    double copies = 1;
    std::vector<std::size_t> next;
    int inputs = 0;
    bool sink = false;
  };
  std::vector<Node> nodes;
};

class AppFanout final : public DataPlane, private Clock, private Executor, private OutcomeSink {
 public:
  AppFanout(std::unique_ptr<DataPlane> inner, std::vector<AppGraph> apps);

  std::string name() const override { return inner_->name(); }
  void start(DataPlaneContext& context) override;
  void on_request(const Request& request) override;
  void on_timer(std::uint64_t token) override;
  void on_batch_done(const BatchDone& done) override;
  void on_transfer_done(const TransferDone& done) override { inner_->on_transfer_done(done); }
  DataPlane& inner() { return *inner_; }

 private:
  struct Live {
    Request request;
    const AppGraph* graph = nullptr;
    std::vector<int> waiting;      // inputs still missing, per node
    std::vector<int> copies_left;  // module requests still running, per node
    int sinks_left = 0;
  };
  struct CpuDone {
    Time at;
    RequestId app;
    std::size_t node;
    bool operator>(const CpuDone& o) const { return at > o.at; }
  };

  void launch(Live& app, std::size_t node, Time now);
  void node_done(RequestId app, std::size_t node, Time end);

  // What the inner plane sees: the outer world, with module requests intercepted.
  Time now() const override { return ctx_->clock.now(); }
  TimerId create_timer(std::uint64_t token) override { return ctx_->clock.create_timer(token); }
  void arm(TimerId timer, Time at) override { ctx_->clock.arm(timer, at); }
  void disarm(TimerId timer) override { ctx_->clock.disarm(timer); }
  void execute(Batch batch) override;
  bool preempt(BatchId batch, std::uint32_t gpu) override { return ctx_->executor.preempt(batch, gpu); }
  void transfer(Transfer t) override { ctx_->executor.transfer(std::move(t)); }
  void reconfigure(std::uint32_t gpu, GpuShare share) override { ctx_->executor.reconfigure(gpu, share); }
  void dropped(const Request& request, DropReason reason) override;
  void completed(const Request& request, Time start, Time end) override {
    ctx_->outcomes.completed(request, start, end);
  }

  std::unique_ptr<DataPlane> inner_;
  std::vector<AppGraph> apps_;
  DataPlaneContext* ctx_ = nullptr;
  DataPlaneContext inner_ctx_;
  std::map<RequestId, Live> live_;
  std::map<RequestId, std::pair<RequestId, std::size_t>> modules_;  // module request → (app, node)
  std::map<BatchId, std::vector<RequestId>> batches_;               // final-stage batches' module requests
  std::priority_queue<CpuDone, std::vector<CpuDone>, std::greater<>> cpu_;
  TimerId cpu_timer_ = 0;
  RequestId next_module_ = RequestId{1} << 62;
  std::vector<std::vector<double>> copy_credit_;  // per graph and node: fractional copies owed
};

}  // namespace servescope::engine
