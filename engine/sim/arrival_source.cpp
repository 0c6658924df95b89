#include "engine/sim/arrival_source.h"

#include <algorithm>
#include <cmath>

namespace servescope::engine {
namespace {

// SplitMix64: decorrelates the per-stream seeds derived from one run seed.
std::uint64_t mix(std::uint64_t x) {
  x += 0x9e3779b97f4a7c15ull;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
  return x ^ (x >> 31);
}

// Rates come from files; a stream at 1e-300 req/s draws gaps that fit no integer, and those
// mean "never" (kNever is Duration::max()), not a wrapped-around time in the past.
Duration seconds(double s) {
  return Duration::saturated_from_s(s);
}

}  // namespace

ListArrivals::ListArrivals(std::vector<Arrival> arrivals) : arrivals_(std::move(arrivals)) {
  // Replayed lists usually come sorted: then no sort, and no buffer for one.
  const auto by_time = [](const Arrival& a, const Arrival& b) { return a.at < b.at; };
  if (!std::ranges::is_sorted(arrivals_, by_time)) std::ranges::stable_sort(arrivals_, by_time);
}

std::optional<Arrival> ListArrivals::next() {
  if (pos_ >= arrivals_.size()) return std::nullopt;
  return arrivals_[pos_++];
}

WorkloadArrivals::WorkloadArrivals(std::vector<ArrivalStream> streams, Time until, std::uint64_t seed)
    : heap_(streams.size()), until_(until) {
  streams_.reserve(streams.size());
  for (std::size_t i = 0; i < streams.size(); ++i) {
    StreamState s{std::move(streams[i]), std::mt19937_64(mix(seed ^ mix(i + 1))), Time(), 0, Duration(), 1};
    if (const auto* trace = std::get_if<TraceArrivals>(&s.spec.process); trace && s.spec.trace.size() >= 2) {
      // Rescale the trace to this stream's rate, and start each stream at a different point of it
      // so that streams replaying one trace do not arrive in lockstep.
      const double trace_rate = static_cast<double>(s.spec.trace.size() - 1) / s.spec.trace.back().to_s();
      s.trace_scale = trace_rate / s.spec.rate_rps;
      s.trace_pos = std::uniform_int_distribution<std::size_t>(0, s.spec.trace.size() - 2)(s.rng);
      s.trace_base = Duration() - seconds(s.spec.trace[s.trace_pos].to_s() * s.trace_scale);
    }
    streams_.push_back(std::move(s));
  }
  for (std::uint32_t i = 0; i < streams_.size(); ++i) {
    auto& s = streams_[i];
    if (s.spec.rate_rps <= 0) continue;
    s.next = draw_after(s, Time());
    if (s.next < until_) heap_.set(i, {s.next, i});
  }
}

Time WorkloadArrivals::draw_after(StreamState& s, Time t) {
  const double rate = s.spec.rate_rps;
  struct Visitor {
    StreamState& s;
    Time t;
    double rate;
    Time until;
    Time operator()(const PoissonArrivals&) const {
      return saturating_add(t, seconds(std::exponential_distribution<double>(rate)(s.rng)));
    }
    Time operator()(const GammaArrivals& g) const {
      return saturating_add(t, seconds(std::gamma_distribution<double>(g.shape, 1.0 / (g.shape * rate))(s.rng)));
    }
    Time operator()(const TraceArrivals&) const {
      const auto& tr = s.spec.trace;
      if (tr.size() < 2) return saturating_add(t, seconds(std::exponential_distribution<double>(rate)(s.rng)));
      ++s.trace_pos;
      if (s.trace_pos >= tr.size()) {
        // Wrap around: the next repetition starts one mean gap after the last arrival.
        s.trace_base = saturating_add(s.trace_base, seconds(tr.back().to_s() * s.trace_scale + 1.0 / rate));
        s.trace_pos = 0;
      }
      return std::max(t, saturating_add(s.trace_base, seconds(tr[s.trace_pos].to_s() * s.trace_scale)));
    }
    Time operator()(const PiecewiseArrivals& p) const {
      // Poisson within each segment; memorylessness makes restarting at a boundary exact.
      Time cursor = t;
      while (cursor < until) {
        Time seg_start;
        for (const auto& seg : p.segments) {
          const Time seg_end = saturating_add(seg_start, seg.duration);
          const bool last = &seg == &p.segments.back();
          if (cursor < seg_end || last) {
            const Time end = last ? kNever : seg_end;
            const double r = rate * seg.rate_multiplier;
            if (r <= 0) {
              cursor = end;
              break;
            }
            const Time cand = saturating_add(cursor, seconds(std::exponential_distribution<double>(r)(s.rng)));
            if (cand < end) return cand;
            cursor = end;
            break;
          }
          seg_start = seg_end;
        }
      }
      return kNever;
    }
  };
  return std::visit(Visitor{s, t, rate, until_}, s.spec.process);
}

std::optional<Arrival> WorkloadArrivals::next() {
  if (heap_.empty()) return std::nullopt;
  const auto i = heap_.top();
  auto& s = streams_[i];
  Arrival a{s.next, s.spec.model, s.spec.target, s.spec.slo};
  s.next = draw_after(s, s.next);
  if (s.next < until_)
    heap_.set(i, {s.next, i});
  else
    heap_.erase(i);
  return a;
}

}  // namespace servescope::engine
