// What the cost planners of Piccolo (seed 001 §3) and Harpagon (seed 004 §2) plan: one
// application DAG whose modules each receive a known request rate, an end-to-end worst-case
// latency SLO, and per module the configurations ⟨batch, concurrency, hardware⟩ it may run,
// each with its batch duration, throughput and machine price. CPU steps have a fixed latency
// and no configurations. Configurations are kept sorted by throughput per unit price, the order
// in which the throughput-cost dispatcher fills machines.
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "model/core/time.h"

namespace servescope::engine {

struct CostConfig {
  std::string hw;  // hardware type (catalog id)
  int batch = 1;
  int concurrency = 1;        // batches one machine runs at once (spatial multiplexing, Piccolo §3.7)
  Duration duration;          // one batch, at that concurrency
  double price = 1;           // per machine and unit of time; only ratios between prices matter
  double throughput_rps = 0;  // concurrency · batch / duration (Piccolo digest gap G11)

  double ratio() const { return throughput_rps / price; }
};
// A configuration with its throughput filled in. Throws QueryError for a non-positive duration,
// batch, concurrency or price.
CostConfig make_cost_config(std::string hw, int batch, int concurrency, Duration duration, double price);

struct CostModule {
  std::string id;
  std::string model;                // the profiled model a DNN module runs; empty for a CPU step
  double rate_rps = 0;              // T_M: requests this module receives per second
  Duration fixed_latency;           // a CPU step's latency (no configurations, no cost)
  std::vector<CostConfig> configs;  // sorted by sort_configs()

  // A CPU step names no model and has no configurations. A DNN module whose configurations a
  // planner's space filters away stays a DNN module (with nothing to run on, which the planner
  // refuses), never a free 0 ms step (docs/formats.md "Cost plans").
  bool is_fixed() const { return model.empty() && configs.empty(); }
};

struct CostProblem {
  std::string name;
  std::vector<CostModule> modules;
  std::vector<std::pair<std::size_t, std::size_t>> edges;  // (from, to) module indices
  Duration slo;                                            // end to end, worst case
};

// Sorts a module's configurations in throughput-cost order: ratio t/p descending, then the
// lower fluid latency d + b/T, the lower price, the smaller batch, the hardware id and the lower
// concurrency (Harpagon digest gap G18), so every planner sees the same deterministic order.
void sort_configs(std::vector<CostConfig>& configs, double rate_rps);

// Checks that the problem is planable: a DAG over valid indices, positive rates and SLO, DNN
// modules with configurations. Throws QueryError naming the module at fault.
void validate(const CostProblem& problem);

// The DAG's structure, computed once: topological order, predecessors and successors.
class CostDag {
 public:
  explicit CostDag(const CostProblem& problem);  // throws QueryError on a cycle
  std::size_t size() const { return preds_.size(); }
  const std::vector<std::size_t>& order() const { return order_; }
  const std::vector<std::size_t>& preds(std::size_t m) const { return preds_[m]; }
  const std::vector<std::size_t>& succs(std::size_t m) const { return succs_[m]; }
  // The longest source-to-sink path with `weight` per module.
  Duration longest_path(const std::vector<Duration>& weight) const;
  // Per module, the longest path from it to a sink, the module itself excluded.
  std::vector<Duration> longest_after(const std::vector<Duration>& weight) const;
  // Per module, the longest source-to-sink path through it.
  std::vector<Duration> longest_through(const std::vector<Duration>& weight) const;
  // Largest number of modules with `counted` set on one source-to-sink path.
  int deepest(const std::vector<bool>& counted) const;

 private:
  std::vector<std::size_t> order_;
  std::vector<std::vector<std::size_t>> preds_, succs_;
};

// Latency comparisons allow one nanosecond (Piccolo digest gap G17: ε = 1e-9 s), so exact ties
// such as 1.0 + 100/100 = 2.0 ≤ 2.0 hold however the division rounded.
inline constexpr Duration kLatencyTolerance = Duration::nanoseconds(1);
// Rates and costs compare with this relative tolerance.
inline constexpr double kRateEpsilon = 1e-9;

// b/w as a duration: how long a batch of `batch` takes to collect at `rate_rps`. Saturates to a
// very long time (not overflow) as the rate goes to zero.
Duration collection_time(int batch, double rate_rps);

}  // namespace servescope::engine
