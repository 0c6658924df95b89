#include "engine/live/live_recording.h"

#include "engine/live/live_run.h"
#include "engine/live/tcp_socket.h"

namespace servescope::engine::live {
namespace {

SimulationResult replay(SimulationResult description, Duration warmup, Time now, const EventSpill* kept,
                        std::uint64_t from, std::uint64_t to, std::span<const std::uint8_t> unpublished = {}) {
  LiveRun run(std::move(description), warmup);
  run.set_horizon(now);
  if (kept) kept->for_each([&](std::span<const std::uint8_t> block) { run.apply(block); }, from, to);
  run.apply(unpublished);
  return run.snapshot();
}

}  // namespace

LiveRecording::LiveRecording(bool keep) : kept_(keep ? std::make_unique<EventSpill>() : nullptr) {}

std::vector<std::uint8_t> LiveRecording::take(Time now) {
  auto bytes = events_.take();
  if (keeping()) {
    try {
      kept_->append(bytes);
    } catch (const LiveError& e) {
      // The chunk is still the subscribers'; the recording ends where the spill does.
      failure_ = std::string(e.what()) + " (at " + std::to_string(now.to_s()) + " s; kept until then)";
    }
  }
  return bytes;
}

void LiveRecording::end_plan(const SimulationResult& plan) {
  if (!kept_) return;
  const auto end = kept_->stored_bytes();
  segments_.push_back({describe_run(plan), plan_begins_, end});
  plan_begins_ = end;
}

SimulationResult LiveRecording::recorded(const SimulationResult& plan, Time now) const {
  // Through the description a subscriber reads, so the run is what a viewer would see. After a
  // failure the unpublished events are left out too: they would follow a gap.
  return replay(run_from_description(describe_run(plan), "the scheduler"), plan.warmup, now, kept_.get(), plan_begins_,
                UINT64_MAX, failure_.empty() ? events_.bytes() : std::span<const std::uint8_t>{});
}

std::vector<SimulationResult> LiveRecording::earlier_plans(Time now) const {
  std::vector<SimulationResult> out;
  for (const auto& seg : segments_) {
    auto description = run_from_description(seg.description, "the scheduler");
    const auto warmup = description.warmup;
    out.push_back(replay(std::move(description), warmup, now, kept_.get(), seg.begin, seg.end));
  }
  return out;
}

}  // namespace servescope::engine::live
