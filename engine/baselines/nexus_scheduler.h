// Nexus (SOSP'19) as Symphony compares against it (seed 002 §3.3): every epoch (10 s) a global
// scheduler packs the models onto GPUs with squishy bin packing from the measured rates; each
// frontend routes a request to one of its model's backends by the backends' assigned shares,
// on its own (smooth weighted round robin per frontend, no coordination); each backend cycles
// round-robin through its models, taking up to the planned batch with the sliding-window drop.
// Without cross-GPU coordination a request may wait a whole batch, hence b ≤ b_nocoord.
#pragma once

#include <deque>
#include <vector>

#include "engine/baselines/squishy_bin_packing.h"
#include "engine/dataplane/data_plane.h"
#include "engine/dataplane/scheduled_model.h"

namespace servescope::engine {

struct NexusOptions {
  Duration epoch = Duration::seconds(10);
  int frontends = 1;
};

class NexusScheduler final : public DataPlane {
 public:
  // `expected_rate_rps[m]` plans the first epoch; later epochs use measured rates.
  NexusScheduler(std::vector<ScheduledModel> models, std::vector<GpuSlot> gpus, std::vector<double> expected_rate_rps,
                 NexusOptions options);

  std::string name() const override { return "nexus"; }
  void start(DataPlaneContext& context) override;
  void on_request(const Request& request) override;
  void on_timer(std::uint64_t token) override;
  void on_batch_done(const BatchDone& done) override;

  const SbpPlan& plan() const { return plan_; }

 private:
  struct Backend {
    std::vector<std::uint32_t> models;        // round-robin order
    std::vector<int> batch;                   // planned batch per entry
    std::vector<std::deque<Request>> queues;  // per entry
    std::size_t next = 0;
    bool busy = false;
  };
  struct Route {
    std::uint32_t gpu = 0;
    double weight = 0;
  };

  Time now() const { return ctx_->clock.now(); }
  void replan(const std::vector<double>& rates);
  void serve(std::size_t gpu);
  std::optional<std::uint32_t> route(std::uint32_t model, std::size_t frontend);
  void enqueue(std::uint32_t gpu, const Request& r);
  void dispatch(const Request& r);

  std::vector<ScheduledModel> models_;
  std::vector<GpuSlot> gpus_;
  NexusOptions options_;
  DataPlaneContext* ctx_ = nullptr;
  SbpPlan plan_;
  std::vector<Backend> backends_;
  std::vector<std::vector<Route>> routes_;             // per model
  std::vector<std::vector<std::vector<double>>> wrr_;  // [frontend][model][route] current weight
  std::vector<std::uint64_t> epoch_arrivals_;
  std::vector<double> expected_;
  TimerId epoch_timer_ = 0;
  BatchId next_batch_ = 1;
};

}  // namespace servescope::engine
