// Latency splitting (Piccolo seed 001 Alg. 2, Harpagon seed 004 §2.7–§2.9): each module starts
// on its fastest option, then the splitter repeatedly takes the move that saves the most cost per
// second of latency spent (LC) — or, for the baselines, the highest-throughput option (TB) —
// while the critical path still fits the SLO. Moves that do not lower cost are never taken (the
// paper's sign trap). Node merger scores siblings that share parents and children as one unit;
// cost-direct redoes the last few moves by absolute saving. The splitter works on abstract
// (latency, cost) options so it can be tested apart from any profile.
#pragma once

#include <limits>
#include <vector>

#include "engine/cost/cost_problem.h"

namespace servescope::engine {

inline constexpr double kInfiniteCost = std::numeric_limits<double>::infinity();

struct SplitOption {
  Duration latency;
  double cost = 0;   // kInfiniteCost when the module cannot be scheduled at this latency
  double score = 0;  // what the throughput splitter maximises (t/p of the configuration)
};

struct SplitInput {
  const CostDag* dag = nullptr;
  Duration slo;
  std::vector<std::vector<SplitOption>> options;  // per module; a fixed step has one
  std::vector<std::size_t> start;                 // per module: its first option
};

enum class SplitScore { LatencyCost, Throughput, CostSaving };

struct SplitMove {
  std::vector<std::pair<std::size_t, std::size_t>> changes;  // (module, new option)
  double lc = 0;      // cost saved per second of latency spent (infinite for a free move)
  double saving = 0;  // cost saved
  Duration spent;     // latency the moved unit gained
};

struct SplitResult {
  std::vector<std::size_t> choice;  // per module
  std::vector<SplitMove> history;
  bool feasible = false;  // the start already fits the SLO
};

// Sets of two or more modules with the same parents and the same children, all with options
// to choose (Harpagon §2.8).
std::vector<std::vector<std::size_t>> sibling_classes(const CostDag& dag, const std::vector<bool>& plannable);

// The latency of the critical path when each module runs `choice`.
Duration critical_path(const SplitInput& input, const std::vector<std::size_t>& choice);

// Alg. 2 from input.start; with `merge`, sibling classes move together.
SplitResult split_latency(const SplitInput& input, SplitScore score, bool merge);

// Cost-direct (Harpagon §2.9): for r = 1..rounds, undo the last r moves of `done` and redo
// greedily by absolute saving. One choice per r.
std::vector<std::vector<std::size_t>> cost_direct(const SplitInput& input, const SplitResult& done, int rounds,
                                                  bool merge);

// Pairwise exchange (ours, not in either paper; docs/reproduction/cost.md "Beyond the papers"):
// while some pair of modules can trade latency for a lower total cost (one takes a faster, dearer
// option so the other can take a much slower, cheaper one), apply the pair move that saves the most.
// The greedy moves one unit at a time, so it stops where only such a trade helps: under tight SLOs
// it left the last module of a chain a few milliseconds and cost up to 1.6× the optimum. `choice`
// must fit the SLO; the result does too and costs less. Returns the moves applied, in order.
std::vector<SplitMove> exchange_pairs(const SplitInput& input, std::vector<std::size_t>& choice);

}  // namespace servescope::engine
