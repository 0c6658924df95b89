// Request load: a mean rate, an arrival process and the models or applications it targets,
// with popularity weights and SLOs. The processes are the ones the papers evaluate with:
// Poisson, Gamma with a shape (bursty, Symphony seed 002 §4.3), a replayed trace rescaled to
// the rate (PPipe's Azure Functions traces), and a piecewise-constant rate over time.
#pragma once

#include <optional>
#include <string>
#include <variant>
#include <vector>

#include "model/core/time.h"

namespace servescope {

struct PoissonArrivals {
  bool operator==(const PoissonArrivals&) const = default;
};
struct GammaArrivals {
  double shape = 1.0;  // CV = 1/sqrt(shape); shape 1 is Poisson
  bool operator==(const GammaArrivals&) const = default;
};
struct TraceArrivals {
  std::string path;  // relative to the scenario file; see docs/formats.md "Trace files"
  bool operator==(const TraceArrivals&) const = default;
};
struct RateSegment {
  Duration duration;
  double rate_multiplier = 1.0;  // times the workload's rate
  bool operator==(const RateSegment&) const = default;
};
struct PiecewiseArrivals {
  std::vector<RateSegment> segments;  // in order; the last one holds to the end
  bool operator==(const PiecewiseArrivals&) const = default;
};
using ArrivalProcess = std::variant<PoissonArrivals, GammaArrivals, TraceArrivals, PiecewiseArrivals>;
std::string describe(const ArrivalProcess& process);

enum class TargetKind { Model, Application };

struct WorkloadTarget {
  TargetKind kind = TargetKind::Model;
  std::string name;
  double weight = 1.0;          // used when popularity is explicit
  std::optional<Duration> slo;  // overrides the model's default or the application's SLO
  bool operator==(const WorkloadTarget&) const = default;
};

enum class Popularity { Explicit, Equal, Zipf };

// Bounds on rates read from files and options. Ten million requests a second is beyond any
// cluster of the papers (and a minute of it is more than a simulation can hold); the smallest
// non-zero weight and rate multiplier keep every stream's mean gap within the range of a
// Duration, so a typo such as 1e-300 is refused instead of drawing gaps of centuries.
inline constexpr double kMaxRateRps = 1e7;
inline constexpr double kMinRateRps = 1e-6;
inline constexpr double kMinNonZeroWeight = 1e-6;

struct Workload {
  std::string name;
  double rate_rps = 0;  // total mean rate over all targets
  ArrivalProcess arrivals = PoissonArrivals{};
  std::vector<WorkloadTarget> targets;
  Popularity popularity = Popularity::Explicit;
  double zipf_s = 0.9;  // exponent for Popularity::Zipf (rank k gets weight 1/k^s)

  // Each target's share of the rate, summing to 1.
  std::vector<double> shares() const;
  bool operator==(const Workload&) const = default;
};

}  // namespace servescope
