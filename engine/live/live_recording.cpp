#include "engine/live/live_recording.h"

#include "engine/live/live_run.h"

namespace servescope::engine::live {
namespace {

SimulationResult replay(SimulationResult description, Duration warmup, Time now, const EventSpill* kept,
                        std::span<const std::uint8_t> unpublished = {}) {
  LiveRun run(std::move(description), warmup);
  run.set_horizon(now);
  if (kept) kept->for_each([&](std::span<const std::uint8_t> block) { run.apply(block); });
  run.apply(unpublished);
  return run.snapshot();
}

}  // namespace

std::vector<std::uint8_t> LiveRecording::take() {
  auto bytes = events_.take();
  if (keep_) kept_->append(bytes);
  return bytes;
}

void LiveRecording::end_plan(const SimulationResult& plan) {
  if (!keep_) return;
  segments_.push_back({describe_run(plan), std::move(kept_)});
  kept_ = std::make_unique<EventSpill>();
}

SimulationResult LiveRecording::recorded(const SimulationResult& plan, Time now) const {
  // Through the description a subscriber reads, so the run is what a viewer would see.
  return replay(run_from_description(describe_run(plan), "the scheduler"), plan.warmup, now, kept_.get(),
                events_.bytes());
}

std::vector<SimulationResult> LiveRecording::earlier_plans(Time now) const {
  std::vector<SimulationResult> out;
  for (const auto& seg : segments_) {
    auto description = run_from_description(seg.description, "the scheduler");
    const auto warmup = description.warmup;
    out.push_back(replay(std::move(description), warmup, now, seg.events.get()));
  }
  return out;
}

}  // namespace servescope::engine::live
