#include "engine/glet/glet_serving.h"

#include <algorithm>

#include "engine/glet/glet_deployment.h"

namespace servescope::engine {
namespace {

constexpr std::uint64_t kPeriodToken = 0, kSwitchToken = 1;
constexpr int kTokenShift = 32;  // a schedule's timer tokens: (generation + 1) << 32 | its own
constexpr int kBatchShift = 40;  // a schedule's batch ids start at (generation + 1) << 40

}  // namespace

// The world one schedule's data plane sees: the outer clock with its timer tokens tagged by
// generation, and the outer executor and outcomes as they are (slots are the same for all).
class GletServing::Scoped final : public Clock {
 public:
  Scoped(DataPlaneContext& outer, std::uint64_t generation)
      : outer_(outer), tag_((generation + 1) << kTokenShift), context_{*this, outer.executor, outer.outcomes} {}
  Time now() const override { return outer_.clock.now(); }
  TimerId create_timer(std::uint64_t token) override { return outer_.clock.create_timer(tag_ | token); }
  void arm(TimerId timer, Time at) override { outer_.clock.arm(timer, at); }
  void disarm(TimerId timer) override { outer_.clock.disarm(timer); }
  DataPlaneContext& context() { return context_; }

 private:
  DataPlaneContext& outer_;
  std::uint64_t tag_;
  DataPlaneContext context_;
};

GletServing::GletServing(GletRescheduler rescheduler, std::vector<std::string> models, std::vector<GpuSlot> slots,
                         std::vector<std::uint32_t> physical, std::vector<const ModelProfile*> profiles,
                         std::vector<Duration> slo, std::vector<int> planned_as, std::vector<double> initial_rps,
                         GletServingOptions options)
    : rescheduler_(std::move(rescheduler)),
      models_(std::move(models)),
      slots_(std::move(slots)),
      physical_(std::move(physical)),
      profiles_(std::move(profiles)),
      slo_(std::move(slo)),
      planned_as_(std::move(planned_as)),
      initial_rps_(std::move(initial_rps)),
      options_(options),
      arrivals_(models_.size(), 0) {}

GletServing::~GletServing() = default;

void GletServing::start(DataPlaneContext& context) {
  ctx_ = &context;
  period_timer_ = context.clock.create_timer(kPeriodToken);
  switch_timer_ = context.clock.create_timer(kSwitchToken);
  // The first schedule is up before the first request (the paper starts from a planned cluster).
  auto first = rescheduler_.on_period(initial_rps_);
  decisions_.push_back(first);
  activate(rescheduler_.schedule());
  log_.push_back({context.clock.now(), context.clock.now(), first.how, first.gpus,
                  rescheduler_.schedule().layout.total_size_percent()});
  context.clock.arm(period_timer_, context.clock.now() + options_.period);
}

void GletServing::activate(const GletPlan& plan) {
  const auto k = generations_.size();
  Generation g;
  g.deployment = std::make_unique<GletDeployment>(deploy_glet_plan_paired(plan, models_, slots_, physical_, profiles_));
  g.host = std::make_unique<Scoped>(*ctx_, k);
  g.plane = std::make_unique<GletDataPlane>(*g.deployment, slo_, options_.plane, BatchId{k + 1} << kBatchShift);
  // Re-split the GPUs whose glets changed size; the batch running on a slot finishes as it was.
  for (std::uint32_t s = 0; s < g.deployment->slots.size(); ++s) {
    const int size = g.deployment->glets[s].size_percent;
    if (size <= 0) continue;
    if (!active_ || active_->deployment->glets[s].size_percent != size)
      ctx_->executor.reconfigure(s, GpuShare::percent(size));
  }
  Generation* previous = active_;
  generations_.push_back(std::move(g));
  active_ = &generations_.back();
  active_->plane->start(active_->host->context());
  // Make-before-break: what the old glets still hold moves to the new ones.
  if (previous)
    for (const auto& r : previous->plane->take_queued())
      active_->plane->on_request(r);
}

void GletServing::on_request(const Request& request) {
  arrivals_[request.model] += 1;
  active_->plane->on_request(request);
}

void GletServing::on_timer(std::uint64_t token) {
  if (const auto generation = token >> kTokenShift; generation > 0) {
    generations_[generation - 1].plane->on_timer(token & ((std::uint64_t{1} << kTokenShift) - 1));
    return;
  }
  const Time now = ctx_->clock.now();
  if (token == kSwitchToken) {
    if (!pending_) return;
    activate(*pending_);
    log_.push_back(
        {pending_decided_, now, pending_how_, pending_->layout.gpus_used(), pending_->layout.total_size_percent()});
    pending_.reset();
    return;
  }
  std::vector<double> measured(initial_rps_.size(), 0);
  for (std::size_t m = 0; m < arrivals_.size(); ++m)
    if (planned_as_[m] >= 0) measured[static_cast<std::size_t>(planned_as_[m])] = arrivals_[m] / options_.period.to_s();
  std::ranges::fill(arrivals_, 0.0);
  const auto d = rescheduler_.on_period(measured);
  decisions_.push_back(d);
  if (d.changed) {
    // Brought up in the background; routing switches once the new glets are warm.
    pending_ = rescheduler_.schedule();
    pending_decided_ = now;
    pending_how_ = d.how;
    ctx_->clock.arm(switch_timer_, now + options_.reorganisation);
  }
  ctx_->clock.arm(period_timer_, now + options_.period);
}

void GletServing::on_batch_done(const BatchDone& done) {
  const auto generation = done.id >> kBatchShift;
  if (generation == 0 || generation > generations_.size()) return;
  generations_[generation - 1].plane->on_batch_done(done);
}

}  // namespace servescope::engine
