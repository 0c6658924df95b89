// gpu-let serving with its schedule kept up to date (seed 003 §4.1, §4.6; digest §4.10, §5.2):
// every period the rates measured in it go to the rescheduler; a new schedule is brought up in
// the background and takes over after the reorganisation delay (make-before-break: the old glets
// serve until then), at which point GPUs whose split changed are re-split, and requests still
// queued move to the new glets. Each GPU is two slots (its first and second glet) for the whole run.
#pragma once

#include <deque>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "engine/glet/glet_data_plane.h"
#include "engine/glet/glet_rescheduler.h"

namespace servescope::engine {

struct GletServingOptions {
  Duration period = Duration::seconds(20);
  Duration reorganisation = Duration::milliseconds(12500);  // 10–15 s to bring up new glets
  GletDataPlaneOptions plane;
};

struct Reorganisation {
  Time decided;  // end of the period whose rates asked for it
  Time active;   // when the new schedule took over
  std::string how;
  int gpus = 0;
  int total_size_percent = 0;  // Σ sizes of the glets in use (the paper's Fig. 14c)
};

class GletServing final : public DataPlane {
 public:
  // `slots` two per GPU with `physical` their GPU index; `models` the data plane's model names
  // and `profiles`, `slo` per model; `planned_as` each model's index among the rescheduler's (−1
  // for one it does not plan, such as an application request); `initial_rps`, in the
  // rescheduler's order, what the first schedule is made for.
  GletServing(GletRescheduler rescheduler, std::vector<std::string> models, std::vector<GpuSlot> slots,
              std::vector<std::uint32_t> physical, std::vector<const ModelProfile*> profiles, std::vector<Duration> slo,
              std::vector<int> planned_as, std::vector<double> initial_rps, GletServingOptions options = {});
  ~GletServing() override;

  std::string name() const override { return "glet-serving"; }
  void start(DataPlaneContext& context) override;
  void on_request(const Request& request) override;
  void on_timer(std::uint64_t token) override;
  void on_batch_done(const BatchDone& done) override;

  // The deployment in force (the simulator's interference hook reads its slot sizes).
  const GletDeployment& deployment() const { return *active_->deployment; }
  const std::vector<Reorganisation>& reorganisations() const { return log_; }
  // Decisions that changed nothing (kept, or reverted at the GPU limit), for the record.
  const std::vector<RescheduleDecision>& decisions() const { return decisions_; }

 private:
  class Scoped;  // one schedule's data plane with its own timer tokens and batch ids
  struct Generation {
    std::unique_ptr<GletDeployment> deployment;
    std::unique_ptr<Scoped> host;
    std::unique_ptr<GletDataPlane> plane;
  };
  void activate(const GletPlan& plan);

  GletRescheduler rescheduler_;
  std::vector<std::string> models_;
  std::vector<GpuSlot> slots_;
  std::vector<std::uint32_t> physical_;
  std::vector<const ModelProfile*> profiles_;
  std::vector<Duration> slo_;
  std::vector<int> planned_as_;
  std::vector<double> initial_rps_;
  GletServingOptions options_;
  DataPlaneContext* ctx_ = nullptr;
  std::deque<Generation> generations_;  // every schedule served so far (stable addresses); the last is in force
  Generation* active_ = nullptr;
  std::vector<double> arrivals_;  // per model, this period
  TimerId period_timer_ = 0, switch_timer_ = 0;
  std::optional<GletPlan> pending_;
  Time pending_decided_;
  std::string pending_how_;
  std::vector<Reorganisation> log_;
  std::vector<RescheduleDecision> decisions_;
};

}  // namespace servescope::engine
