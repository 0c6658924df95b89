// Application requests over a model data plane (glet seed 003 §5.2, Piccolo seed 001 §2): an
// application request starts its source modules as requests of their models; a finished module
// starts every successor whose inputs are all in; a CPU step just takes its time; the request
// completes when its last sink finishes and is dropped as soon as any of its modules is.
#pragma once

#include <deque>
#include <memory>
#include <optional>
#include <queue>
#include <unordered_map>
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
  // An application request in flight, in a slot reused after it ends: its per-node vectors keep
  // their room, so a request costs no allocation once the slots are warm (a map node and two
  // vectors per request were most of a cost simulation's time under the sanitizers).
  struct Live {
    Request request;
    const AppGraph* graph = nullptr;
    std::vector<int> waiting;      // inputs still missing, per node
    std::vector<int> copies_left;  // module requests still running, per node
    int sinks_left = 0;
    std::uint32_t generation = 0;  // bumped when the slot is let go, so stale references miss
    bool alive = false;
  };
  struct AppRef {
    std::uint32_t slot = 0, generation = 0;
  };
  struct Module {  // a module request in flight
    AppRef app;
    std::size_t node = 0;
    bool open = false;
  };
  struct CpuDone {
    Time at;
    AppRef app;
    std::size_t node;
    bool operator>(const CpuDone& o) const { return at > o.at; }
  };
  Live* find_app(AppRef ref);
  void release(Live& app);
  Module* find_module(RequestId id);
  void close_module(Module& m);
  void launch(Live& app, std::size_t node, Time now);
  void node_done(AppRef app, std::size_t node, Time end);

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
  std::vector<Live> slots_;
  std::vector<std::uint32_t> free_slots_;
  // Module requests by id, from modules_base_ on: ids are handed out in order, so a deque
  // trimmed at the front as they close holds only those in flight and what came after them.
  std::deque<Module> modules_;
  RequestId modules_base_ = RequestId{1} << 62;
  // Final-stage batches' module requests until each is done (an overloaded plan queues many);
  // emptied lists are kept for their room.
  std::unordered_map<BatchId, std::vector<RequestId>> batches_;
  std::vector<std::vector<RequestId>> spare_;
  std::priority_queue<CpuDone, std::vector<CpuDone>, std::greater<>> cpu_;
  TimerId cpu_timer_ = 0;
  RequestId next_module_ = RequestId{1} << 62;
  std::vector<std::vector<double>> copy_credit_;  // per graph and node: fractional copies owed
};

}  // namespace servescope::engine
