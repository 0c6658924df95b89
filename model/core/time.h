// Durations in integer nanoseconds. Profiles come in integer or fractional microseconds and
// feature-map transfers in fractions of a microsecond; nanoseconds hold all of them exactly
// enough (±0.5 ns) while keeping every comparison in the engine integral and deterministic.
#pragma once

#include <compare>
#include <cstdint>
#include <string>

namespace servescope {

class Duration {
 public:
  constexpr Duration() = default;

  static constexpr Duration nanoseconds(std::int64_t ns) { return Duration(ns); }
  static constexpr Duration microseconds(std::int64_t us) { return Duration(us * 1000); }
  static constexpr Duration milliseconds(std::int64_t ms) { return Duration(ms * 1'000'000); }
  static constexpr Duration seconds(std::int64_t s) { return Duration(s * 1'000'000'000); }
  // Rounds to the nearest nanosecond. The value must be finite and within ±292 years.
  static Duration from_us(double us);
  static Duration from_ms(double ms) { return from_us(ms * 1000.0); }
  static Duration from_s(double s) { return from_us(s * 1e6); }
  // For lengths computed from untrusted rates (an arrival gap of 1e300 s): NaN and anything
  // beyond ±292 years become max() or its negation instead of overflowing.
  static Duration saturated_from_s(double s);
  static constexpr Duration max() { return Duration(INT64_MAX); }

  constexpr std::int64_t count_ns() const { return ns_; }
  constexpr double to_us() const { return static_cast<double>(ns_) / 1e3; }
  constexpr double to_ms() const { return static_cast<double>(ns_) / 1e6; }
  constexpr double to_s() const { return static_cast<double>(ns_) / 1e9; }

  constexpr Duration operator+(Duration o) const { return Duration(ns_ + o.ns_); }
  constexpr Duration operator-(Duration o) const { return Duration(ns_ - o.ns_); }
  constexpr Duration operator*(std::int64_t k) const { return Duration(ns_ * k); }
  constexpr Duration& operator+=(Duration o) {
    ns_ += o.ns_;
    return *this;
  }
  constexpr Duration& operator-=(Duration o) {
    ns_ -= o.ns_;
    return *this;
  }
  constexpr auto operator<=>(const Duration&) const = default;

 private:
  constexpr explicit Duration(std::int64_t ns) : ns_(ns) {}
  std::int64_t ns_ = 0;
};

// a + b, held at Duration::max() (or its negation) instead of overflowing: for "the next arrival
// is at now + gap" where the gap may be Duration::max(), meaning never.
constexpr Duration saturating_add(Duration a, Duration b) {
  std::int64_t sum = 0;
  if (__builtin_add_overflow(a.count_ns(), b.count_ns(), &sum))
    return b.count_ns() > 0 ? Duration::max() : Duration::nanoseconds(-INT64_MAX);
  return Duration::nanoseconds(sum);
}

// Largest magnitude accepted from files, in microseconds: about 106 days. Anything larger in a
// latency or SLO is a unit mistake, not a measurement.
inline constexpr double kMaxFileDurationUs = 1e13;

// "850 ns", "12.4 µs", "3.25 ms", "1.5 s": for logs, the CLI and tooltips.
std::string format_duration(Duration d);

}  // namespace servescope
