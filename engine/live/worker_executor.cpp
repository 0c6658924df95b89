#include "engine/live/worker_executor.h"

#include <algorithm>
#include <cmath>

#include "engine/core/unit_draw.h"
#include "model/core/error.h"

namespace servescope::engine::live {

EmulatedExecutor::EmulatedExecutor(double noise, std::uint64_t seed) : noise_(noise), rng_(seed) {
  if (!(noise >= 0 && noise < 1))
    throw QueryError("executor noise must be in [0, 1) (got " + std::to_string(noise) + ")");
}

void EmulatedExecutor::submit(const RunOrder& order, SteadyClock::time_point at) {
  auto& slot = slots_[order.slot];
  slot.queue.push_back(Pending{order, at + std::chrono::nanoseconds(order.start_in_ns)});
  if (!slot.running_until) start_next(slot, at);
}

void EmulatedExecutor::start_next(Slot& slot, SteadyClock::time_point now) {
  if (slot.queue.empty()) {
    slot.running_since.reset();
    slot.running_until.reset();
    return;
  }
  const auto& next = slot.queue.front();
  const auto start = std::max(now, next.not_before);
  double run = static_cast<double>(next.order.run_ns);
  if (noise_ > 0) {
    const double u = unit_draw(rng_);
    run *= 1 - noise_ + 2 * noise_ * u;
  }
  slot.running_since = start;
  slot.running_until = start + std::chrono::nanoseconds(std::llround(run));
}

std::vector<RunReport> EmulatedExecutor::finished(SteadyClock::time_point now) {
  std::vector<std::pair<SteadyClock::time_point, RunReport>> done;
  for (auto& [index, slot] : slots_)
    while (slot.running_until && *slot.running_until <= now) {
      const auto ended = *slot.running_until;
      const auto ran = std::chrono::duration_cast<std::chrono::nanoseconds>(ended - *slot.running_since).count();
      done.emplace_back(ended, RunReport{slot.queue.front().order.batch, index, ran});
      slot.queue.pop_front();
      start_next(slot, ended);
    }
  std::ranges::stable_sort(done, {}, &std::pair<SteadyClock::time_point, RunReport>::first);
  std::vector<RunReport> out;
  out.reserve(done.size());
  for (auto& d : done)
    out.push_back(d.second);
  return out;
}

std::optional<SteadyClock::time_point> EmulatedExecutor::next_event() const {
  std::optional<SteadyClock::time_point> best;
  for (const auto& [index, slot] : slots_)
    if (slot.running_until && (!best || *slot.running_until < *best)) best = slot.running_until;
  return best;
}

std::size_t EmulatedExecutor::queued() const {
  std::size_t n = 0;
  for (const auto& [index, slot] : slots_)
    n += slot.queue.size();
  return n;
}

}  // namespace servescope::engine::live
