// Seeded random cost-planning workloads for property tests, benchmarks and the reproduction
// report (docs/reproduction/cost.md). Neither paper publishes its workloads; these follow the
// digests' labelled assumptions (Harpagon digest §4.2–§4.4, Piccolo digest §5.2, G15): apps of
// 2–4 modules shaped as chains, forks and fork-joins; two hardware types priced 1.0 and 1.5 with
// affine latency d = β + α·b and the dear type 1.5–2× faster; batches 1–64; concurrency 1–2 with a
// 1.6× slowdown per batch at 2; source rate log-uniform in [10, 400] req/s, fan-out 0.5–3 per
// module; SLO κ × the fastest critical path with κ uniform in [1.2, 6].
//
// The audit's workloads (docs/reproduction/cost.md "The audit") add what real profiles have and the
// papers' never had: a third, cheaper and slower type, irregular profiled batch lists, modules
// profiled only at MPS shares, modules without a profile on some type, joins of several sources.
// Each addition is off by default and draws its own random numbers only when on, so a seed's
// default workload never changes.
#pragma once

#include <cstdint>

#include "engine/cost/cost_problem.h"

namespace servescope::engine {

struct RandomWorkloadOptions {
  bool spatial = true;  // offer concurrency 2
  int max_batch = 64;
  // The audit's additions.
  bool third_type = false;         // a "T4" priced 0.6, 1.3–2× slower than the P100
  bool irregular_batches = false;  // 3–8 profiled sizes out of 1–128 per module, not always from 1
  int max_concurrency = 2;         // with `spatial`: MPS shares 1/2 … 1/max, 1.6×, 2.2×, 2.8× slower
  double mps_only = 0;             // chance that a module is profiled only at MPS shares
  double missing_type = 0;         // chance that a module has no profile on one of its types
  double join = 0;                 // chance that an app of 3–4 modules joins several sources

  // Everything above, as the audit had it.
  static RandomWorkloadOptions audit();
};

CostProblem random_cost_problem(std::uint64_t seed, const RandomWorkloadOptions& options = {});

}  // namespace servescope::engine
