// Symphony's deferred batch scheduler (seed 002 §3, Algorithm 1, with Appendix D's network
// delay and ModelThread/RankThread split) for one sub-cluster of identical GPUs, and the
// baselines that differ from it only in when a batch may start (§2.7: eager, timeout, latest)
// or which waiting model a freed GPU takes (Clockwork's earliest latest-start).
//
// Model side (per model, work at the request rate): a deadline-ordered queue, the batch policy
// (greedy, or window drop with a target size from the measured rate) and one candidate
// (batch size, exec time, latest start). Rank side (shared, work at the batch rate): when each
// GPU is next free, the candidates that are schedulable but found no GPU, and one GPU timer.
// Every event costs O(log M + log G).
#pragma once

#include <deque>
#include <string>
#include <vector>

#include "engine/core/indexed_heap.h"
#include "engine/dataplane/batch_latency.h"
#include "engine/dataplane/data_plane.h"
#include "engine/dataplane/scheduled_model.h"
#include "engine/symphony/gpu_free_tree.h"
#include "engine/symphony/rate_estimator.h"

namespace servescope::engine {

// When a candidate batch may start (digest §2.7); all are clamped to [earliest, latest].
enum class ExecRule {
  Deferred,  // frontrun d − ℓ(b+1): the moment the batch can no longer grow (Symphony)
  Eager,     // as soon as possible
  Timeout,   // head arrival + timeout, or at once when the batch is full (TF-Serving)
  Latest,    // d − ℓ(b): largest batches, longest idle time
};

// How a batch is formed from the queue (digest §2.2).
enum class BatchRule {
  Greedy,      // largest batch meeting the head's deadline; drop heads that cannot make it alone
  WindowDrop,  // drop heads that would keep the batch below its target size T, then greedy
  WindowFcfs,  // aim for T but never drop: late requests are still served
};

// Which GPU a schedulable candidate takes (digest gap G2).
enum class GpuPick { LowestId, EarliestFree };

// Which waiting candidate a freed GPU takes.
enum class ModelPick {
  EarliestLatest,  // EDF on the latest start (Symphony, Clockwork)
  OldestRequest,   // FCFS across models (generic eager)
  LargestBatch,    // Shepherd's rule without preemption
};

struct DeferredOptions {
  ExecRule exec_rule = ExecRule::Deferred;
  Duration timeout;  // for ExecRule::Timeout
  BatchRule batch_rule = BatchRule::WindowDrop;
  GpuPick gpu_pick = GpuPick::LowestId;
  ModelPick model_pick = ModelPick::EarliestLatest;
  int max_batch = 0;  // 0: as large as the profile allows
  // Appendix D network model: delay(b) = d_ctrl + d_data·b before a batch can start; results
  // need d_resp to return (taken off the SLO when sizing the target batch).
  Duration d_ctrl, d_data, d_resp;
  Duration rate_bin = Duration::milliseconds(50);
  int rate_bins = 100;
};

class DeferredScheduler final : public DataPlane {
 public:
  DeferredScheduler(std::vector<ScheduledModel> models, std::vector<GpuSlot> gpus, DeferredOptions options);

  std::string name() const override;
  void start(DataPlaneContext& context) override;
  void on_request(const Request& request) override;
  void on_timer(std::uint64_t token) override;
  void on_batch_done(const BatchDone& done) override;
  void set_gpu_available(std::uint32_t gpu, bool available) override;

  // Changing the rule mid-run re-evaluates every candidate (used to replay the paper's Fig. 5a).
  void set_exec_rule(ExecRule rule, Duration timeout = {});
  const DeferredOptions& options() const { return options_; }

  // Introspection for tests and the GUI's scheduler-internals view.
  struct Candidate {
    int batch = 0;
    Time exec, latest, head_deadline;
    Time earliest;      // with `latest`, the schedulable window
    bool late = false;  // WindowFcfs serving a head that can no longer make its deadline
  };
  std::optional<Candidate> candidate(std::uint32_t model) const;
  std::size_t queue_length(std::uint32_t model) const { return models_[model].queue.size(); }
  int target_batch(std::uint32_t model) const { return models_[model].target; }
  Time gpu_free_at(std::uint32_t gpu) const { return free_.free_at(gpu); }
  std::size_t pending_count() const { return pending_latest_.size(); }

 private:
  enum class Phase : std::uint8_t { Idle, WaitingExec, Pending };
  struct ModelState {
    ScheduledModel spec;
    std::deque<Request> queue;
    Candidate cand;
    bool has_cand = false;
    Phase phase = Phase::Idle;
    TimerId timer = 0;
    RateEstimator rate;
    int target = 1;
    std::uint64_t pending_seq = 0;
  };
  struct PendingKey {
    Time t;
    std::uint64_t seq;
    bool operator<(const PendingKey& o) const { return t < o.t || (t == o.t && seq < o.seq); }
  };

  Time now() const { return ctx_->clock.now(); }
  Duration delay(int b) const { return options_.d_ctrl + options_.d_data * b; }
  // When a request's result must leave the GPU: its deadline less the return path (the digest's
  // G6, as the reference code does; d_resp is 0 in pure simulation).
  Time due(const Request& r) const { return r.deadline - options_.d_resp; }
  void enqueue(ModelState& m, const Request& r);
  void update_candidate(std::uint32_t model, Time gpu_free_at);
  int form_batch(ModelState& m, Time gpu_free_at);
  void inform_candidate(std::uint32_t model);
  void on_model_timer(std::uint32_t model);
  void on_gpu_timer();
  void grant(std::uint32_t model, std::size_t gpu);
  void rearm_gpu_timer();
  void make_pending(std::uint32_t model);
  void remove_pending(std::uint32_t model);
  void refresh_target(ModelState& m);
  int initial_target(const ModelState& m) const;

  std::vector<ModelState> models_;
  std::vector<GpuSlot> gpus_;
  DeferredOptions options_;
  DataPlaneContext* ctx_ = nullptr;
  GpuFreeTree free_;
  std::vector<bool> gone_;                  // per GPU: its worker is lost (live mode); never free while so
  std::vector<Time> free_before_gone_;      // per gone GPU: when it was to free, for its return
  IndexedHeap<PendingKey> pending_latest_;  // by latest start: eviction and EDF
  IndexedHeap<PendingKey> pending_pick_;    // by the model-pick rule when it is not EDF
  IndexedHeap<PendingKey> pending_size_;    // by −batch, for the largest network delay
  std::vector<BatchId> last_batch_;         // per GPU
  TimerId gpu_timer_ = 0;
  std::uint64_t seq_ = 0;
  BatchId next_batch_ = 1;
};

}  // namespace servescope::engine
