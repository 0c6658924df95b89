// Shepherd's "Flex" scheduler (NSDI'23) as Symphony's authors re-implemented it (seed 002 §3.5,
// digest §3.5): centralized and eager. A GPU that frees runs the largest feasible batch over all
// models; a new request may preempt a running batch when the batch it would form is at least
// λ = 3 times larger (the preempted work is wasted and its requests go back to their queue).
// Batch feasibility uses the batch's earliest deadline and |B| + 1, the two fixes the
// re-implementation made to Shepherd's published pseudo-code.
#pragma once

#include <deque>
#include <optional>
#include <vector>

#include "engine/dataplane/batch_latency.h"
#include "engine/dataplane/data_plane.h"
#include "engine/dataplane/scheduled_model.h"

namespace servescope::engine {

struct ShepherdOptions {
  double preempt_factor = 3.0;  // λ
  Duration d_ctrl, d_data;      // network delay before a batch can start
  int max_batch = 0;
};

class ShepherdScheduler final : public DataPlane {
 public:
  ShepherdScheduler(std::vector<ScheduledModel> models, std::vector<GpuSlot> gpus, ShepherdOptions options);

  std::string name() const override { return "shepherd"; }
  void start(DataPlaneContext& context) override;
  void on_request(const Request& request) override;
  void on_timer(std::uint64_t token) override;
  void on_batch_done(const BatchDone& done) override;

  std::uint64_t preemptions() const { return preemptions_; }

 private:
  struct Running {
    BatchId id = 0;
    std::uint32_t model = 0;
    std::vector<Request> requests;
  };
  struct Choice {
    std::uint32_t model = 0;
    int size = 0;
    bool includes_running = false;  // the running batch's requests are part of it
  };

  Time now() const { return ctx_->clock.now(); }
  int cap(std::uint32_t model) const;
  void drop_hopeless(std::uint32_t model);
  // The largest feasible batch of `model` on `gpu` now, counting the running batch's requests
  // when it runs the same model.
  int feasible(std::uint32_t model, std::size_t gpu, bool with_running) const;
  std::optional<Choice> batch_gen(std::size_t gpu, std::initializer_list<std::uint32_t> models_subset, bool all);
  void run(std::size_t gpu, const Choice& choice);

  std::vector<ScheduledModel> models_;
  std::vector<std::deque<Request>> queues_;
  std::vector<GpuSlot> gpus_;
  std::vector<std::optional<Running>> running_;
  ShepherdOptions options_;
  DataPlaneContext* ctx_ = nullptr;
  BatchId next_batch_ = 1;
  std::uint64_t preemptions_ = 0;
};

}  // namespace servescope::engine
