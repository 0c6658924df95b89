#include "engine/live/hello_gate.h"

#include <algorithm>

namespace servescope::engine::live {
namespace {

// A source quiet this long starts again with a clean slate, and its books are dropped.
constexpr std::chrono::seconds kForgiveAfter{30};
constexpr std::chrono::seconds kForgetAfter{60};
// Bounds on the books themselves, whatever a crowd of addresses does.
constexpr std::size_t kMaxSources = 4096;
constexpr std::size_t kMaxWorkerSources = 1024;

}  // namespace

HelloGate::Admission HelloGate::arrive(std::uint64_t id, const std::string& source, Time now,
                                       const Speaking& speaking) {
  const bool worker = worker_sources_.contains(source);
  // The oldest of those `pick` chooses that is silent, or failing that the oldest of them.
  auto oldest = [&](auto&& pick) -> std::optional<std::uint64_t> {
    std::optional<std::uint64_t> first;
    for (const auto& w : waiting_) {  // in order of arrival
      if (!pick(w)) continue;
      if (!speaking || !speaking(w.id)) return w.id;
      if (!first) first = w.id;
    }
    return first;
  };
  auto from_source = [&](const Waiting& w) { return w.source == source; };
  auto stranger = [](const Waiting& w) { return !w.worker_source; };
  const auto same = static_cast<std::size_t>(std::ranges::count_if(waiting_, from_source));
  const auto strangers = static_cast<std::size_t>(std::ranges::count_if(waiting_, stranger));
  const auto strangers_room = limits_.waiting - std::min(limits_.waiting, limits_.reserved_for_workers);
  Admission a{true, std::nullopt};
  if (same >= limits_.per_source) {
    a.evicted = oldest(from_source);
  } else if (!worker && strangers >= strangers_room) {
    a.evicted = oldest(stranger);
  } else if (waiting_.size() >= limits_.waiting) {
    // Strangers make room first; a worker's source may also displace its own kind; a stranger
    // never displaces those (then the room is full of workers' sources, and it waits its turn).
    a.evicted = oldest(stranger);
    if (!a.evicted && worker) a.evicted = oldest([](const Waiting&) { return true; });
    a.admitted = a.evicted.has_value();
  }
  if (a.evicted) leave(*a.evicted);
  if (a.admitted) waiting_.push_back(Waiting{id, source, now, worker});
  return a;
}

void HelloGate::leave(std::uint64_t id) {
  std::erase_if(waiting_, [id](const Waiting& w) { return w.id == id; });
}

void HelloGate::welcomed(std::uint64_t id, bool worker) {
  const auto it = std::ranges::find(waiting_, id, &Waiting::id);
  if (it == waiting_.end()) return;
  if (worker && worker_sources_.size() < kMaxWorkerSources) worker_sources_.insert(it->source);
  waiting_.erase(it);
}

std::chrono::milliseconds HelloGate::deadline() const {
  return waiting_.size() * 2 >= limits_.waiting ? limits_.pressed_deadline : limits_.deadline;
}

std::vector<std::uint64_t> HelloGate::overdue(Time now) const {
  std::vector<std::uint64_t> out;
  const auto limit = deadline();
  for (const auto& w : waiting_)
    if (now - w.since > limit && !holds(w.source, now)) out.push_back(w.id);
  return out;
}

bool HelloGate::holds(const std::string& source, Time now) const {
  const auto it = failures_.find(source);
  return it != failures_.end() && now < it->second.held_until;
}

std::optional<std::string> HelloGate::failed(const std::string& source, const std::string& reason, Time now) {
  if (!failures_.contains(source) && failures_.size() >= kMaxSources) {
    // Full: forget the source heard from least recently.
    const auto quietest = std::ranges::min_element(failures_, {}, [](const auto& kv) { return kv.second.last; });
    failures_.erase(quietest);
  }
  auto& f = failures_[source];
  if (f.count > 0 && now - f.last > kForgiveAfter) f.count = 0;
  ++f.count;
  f.last = now;
  f.last_reason = reason;
  if (f.count > limits_.free_failures) {
    const int doublings = std::min(f.count - limits_.free_failures - 1, 20);
    f.held_until =
        now + std::min<std::chrono::milliseconds>(limits_.max_backoff, limits_.first_backoff * (1 << doublings));
  }
  if (f.window) {
    ++f.unlogged;
    return std::nullopt;
  }
  f.window = now;
  return "refused a connection from " + source + ": " + reason;
}

std::vector<std::string> HelloGate::summaries(Time now) {
  std::vector<std::string> lines;
  for (auto it = failures_.begin(); it != failures_.end();) {
    auto& f = it->second;
    if (f.window && now - *f.window >= limits_.log_every) {
      if (f.unlogged > 0)
        lines.push_back(std::to_string(f.unlogged) + " more refused connections from " + it->first + " in the last " +
                        std::to_string(std::chrono::duration_cast<std::chrono::seconds>(now - *f.window).count()) +
                        " s (the last refused: " + f.last_reason + ")");
      f.window.reset();
      f.unlogged = 0;
    }
    if (!f.window && now - f.last > kForgetAfter && now >= f.held_until)
      it = failures_.erase(it);
    else
      ++it;
  }
  return lines;
}

}  // namespace servescope::engine::live
