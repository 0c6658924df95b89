// The reactive baseline of PPipe's data-plane ablation (seed 000 §7.4; digest §4.9): the same
// pooled pipelines, but every pool batches on its own, Nexus-style, with no reservations. A
// pool keeps the downstream partitions' planned time as slack, sends the largest batch that
// still fits to the worker it expects to be free first, and forwards outputs over the NICs
// first-come first-served, so transfers queue on busy links and requests die at later pools.
#pragma once

#include <deque>
#include <unordered_map>
#include <vector>

#include "engine/dataplane/data_plane.h"
#include "engine/ppipe/pipeline_deployment.h"

namespace servescope::engine {

struct ReactiveSchedulerOptions {
  // Artifact: a head whose first batch would be under this fraction of the planned one is
  // dropped at once. 0: off. 0.95, the artifact's, as the reservation plane's (one option sets both).
  double first_look_min_fraction = 0.95;
};

class ReactivePoolScheduler final : public DataPlane {
 public:
  // `deployment` must outlive the scheduler.
  explicit ReactivePoolScheduler(const PipelineDeployment& deployment, ReactiveSchedulerOptions options = {});

  std::string name() const override { return "ppipe-reactive"; }
  void start(DataPlaneContext& context) override;
  void on_request(const Request& request) override;
  void on_timer(std::uint64_t token) override;
  void on_batch_done(const BatchDone& done) override;
  void on_transfer_done(const TransferDone& done) override;

 private:
  struct Pool {
    std::uint32_t pipeline = 0;
    int stage = 0;
    Duration slack;             // planned time of the later partitions and transfers
    std::deque<Request> queue;  // by deadline
    RequestId seen_head = 0;
    TimerId timer = 0;
  };
  struct Moving {
    std::uint32_t pool = 0;  // where the requests go next
    std::vector<Request> requests;
  };

  Duration out_transfer(std::uint32_t pipeline, int stage, int batch) const;
  std::uint32_t earliest_worker(const Pool& pool, Time now, Time* free_at) const;
  void enqueue(std::uint32_t pool, const Request& request);
  void schedule(std::uint32_t pool);

  const PipelineDeployment& d_;
  ReactiveSchedulerOptions options_;
  DataPlaneContext* ctx_ = nullptr;
  std::vector<Pool> pools_;
  std::vector<std::uint32_t> first_pool_;  // per pipeline
  std::vector<double> served_;             // per pipeline, requests routed to it
  std::vector<Time> busy_until_;           // per slot: the end of the work we sent it
  std::unordered_map<BatchId, Moving> running_, moving_;
  BatchId next_id_ = 1;
};

}  // namespace servescope::engine
