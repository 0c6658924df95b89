// PPipe's data plane: reservation-based adaptive batching (seed 000 §5.2, Algorithm 1; digest
// §4.5–§4.7). Per model, one deadline-ordered queue. For the head request: pick the pooled
// pipeline that waits least at its planned batch, then the largest batch that still meets the
// head's deadline; drop the head if even one misses it, wait while the queue is short of the
// batch and there is slack, else reserve every GPU and link on the path and dispatch. Each stage
// and transfer is handed to the executor no earlier than its reserved start, so executors run
// work in reservation order; what really happened comes back as feedback that corrects the tables.
#pragma once

#include <deque>
#include <queue>
#include <set>
#include <unordered_map>
#include <vector>

#include "engine/dataplane/data_plane.h"
#include "engine/ppipe/pipeline_deployment.h"
#include "engine/ppipe/pipeline_probe.h"
#include "engine/ppipe/reservation_table.h"

namespace servescope::engine {

enum class WakeRule : std::uint8_t {
  LatestFeasible,       // paper: wait until the queued requests could only just be served on time
  NextBatchInfeasible,  // artifact: until a batch one larger could not finish even on an idle pipeline
};

struct ReservationSchedulerOptions {
  ReservationMode mode = ReservationMode::GapFilling;
  ProbeOptions probe;
  WakeRule wake = WakeRule::LatestFeasible;
  // Artifact admission heuristic: when a request first becomes head, only batches within
  // [round(f · planned), planned] are tried, and it is dropped at once if none fits. 0: off.
  // 0.95 since issue 49 (the artifact's value; a planned batch of one is untouched): a head that
  // cannot make a near-planned batch is let go before it drags its successors into small ones.
  double first_look_min_fraction = 0.95;
  // Artifact tweak: a pipeline whose batch of one already misses the head's deadline scores an
  // extra SLO in Step 1, so it is never picked over one that can make it.
  bool penalise_late_single = true;
  // Feedback correction (digest §4.6): each finished batch or transfer replaces its reserved
  // interval with the real one. Off, the tables drift whenever runtimes differ from the profile.
  bool feedback = true;
  // ... and learns each vGPU's pace (slot_pace.h): later batches there are reserved at the upper
  // quartile of its recent real-to-profiled ratios at that batch size, never below the profile.
  bool learn_pace = true;
  // While the pipeline is booked more than a planned batch's work ahead, the head is dropped
  // rather than served in a batch smaller than this fraction of the planned one. A
  // pipeline that is behind and shrinks its batches to save each head books its vGPUs for more
  // time per request the further behind it falls, until it serves almost none; an idle one loses
  // nothing by a small batch. 0: the paper's rule (any batch that meets the head's deadline).
  double behind_min_fraction = 0.75;
  // Results reach their client this long after the last stage ends (a live deployment's report
  // hop): batches are sized to finish that much before the head's deadline. 0 in simulation.
  Duration response_allowance;
};

struct ReservationSchedulerStats {
  std::uint64_t dispatches = 0;
  std::uint64_t probes = 0;
  std::uint64_t drops = 0;
};

class ReservationScheduler final : public DataPlane {
 public:
  // `deployment` must outlive the scheduler. model_slo[m] sizes the penalty of a late pipeline.
  ReservationScheduler(const PipelineDeployment& deployment, std::vector<Duration> model_slo,
                       ReservationSchedulerOptions options = {});

  std::string name() const override { return "ppipe-reservation"; }
  void start(DataPlaneContext& context) override;
  void on_request(const Request& request) override;
  void on_timer(std::uint64_t token) override;
  void on_batch_done(const BatchDone& done) override;
  void on_transfer_done(const TransferDone& done) override;
  // Live mode: probes skip a vGPU out of planning (its worker late or gone), so its pools go on
  // with the others; a late worker still runs the stages reserved on it before.
  void set_gpu_available(std::uint32_t gpu, bool available) override { prober_.set_gone(gpu, !available); }
  // Its worker gone, a flight with a stage still to start there ends now, its requests dropped as
  // worker-lost, rather than be handed to nobody when that stage is due.
  void on_gpu_lost(std::uint32_t gpu) override;

  ReservationSchedulerStats stats() const;
  const ReservationTable& table() const { return table_; }
  // For callers that know of work the scheduler did not place (tests, a warm restart).
  ReservationTable& table() { return table_; }
  const PipelineProber& prober() const { return prober_; }

 private:
  // A dispatched batch on its way through the pipeline.
  struct Flight {
    Offer offer;
    std::vector<Request> requests;
    int next_stage = 0;  // the first stage whose batch is not yet handed to its vGPU
  };
  // A stage inference or a transfer into a stage, due at a reserved time.
  struct Release {
    Time due;
    std::uint64_t seq;
    std::uint64_t flight;
    std::uint8_t stage;
    bool transfer;
    bool operator>(const Release& o) const { return due != o.due ? due > o.due : seq > o.seq; }
  };

  void schedule(std::uint32_t model);
  Duration idle_work(std::uint32_t pipeline, int batch) const;
  void drop_head(std::uint32_t model, DropReason why = DropReason::DeadlineUnreachable);
  void dispatch(std::uint32_t model, Offer offer);
  void ready(std::uint64_t flight, int stage, bool transfer);
  void release(std::uint64_t flight, int stage, bool transfer);
  void release_due();

  const PipelineDeployment& d_;
  std::vector<Duration> slo_;
  ReservationSchedulerOptions options_;
  ReservationTable table_;
  PipelineProber prober_;
  DataPlaneContext* ctx_ = nullptr;
  std::vector<std::deque<Request>> queue_;  // per model, by deadline
  std::vector<RequestId> seen_head_;        // the head already given its first look
  std::vector<TimerId> model_timer_;
  TimerId release_timer_ = 0;
  std::priority_queue<Release, std::vector<Release>, std::greater<>> releases_;
  std::unordered_map<std::uint64_t, Flight> flights_;
  std::multiset<Time> in_flight_starts_;  // each flight's first reserved start, while it flies
  static constexpr Duration kKeepUnreported = Duration::seconds(10);
  std::uint64_t next_flight_ = 1;
  std::uint64_t seq_ = 0;
  Time last_forget_;
  ReservationSchedulerStats stats_;
};

// Batch and transfer ids of pipeline data planes: the flight and the stage in one number.
inline BatchId stage_batch_id(std::uint64_t flight, int stage) {
  return flight * kMaxPipelineStages + static_cast<std::uint64_t>(stage);
}
inline std::uint64_t flight_of(BatchId id) {
  return id / kMaxPipelineStages;
}
inline int stage_of(BatchId id) {
  return static_cast<int>(id % kMaxPipelineStages);
}

}  // namespace servescope::engine
