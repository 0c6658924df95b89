// Seeded random cost-planning workloads for property tests, benchmarks and the reproduction
// report (docs/reproduction/cost.md). Neither paper publishes its workloads; these follow the
// digests' labelled assumptions (Harpagon digest §4.2–§4.4, Piccolo digest §5.2, G15): apps of
// 2–4 modules shaped as chains, forks and fork-joins; two hardware types priced 1.0 and 1.5 with
// affine latency d = β + α·b and the dear type 1.5–2× faster; batches 1–64; concurrency 1–2 with a
// 1.6× slowdown per batch at 2; source rate log-uniform in [10, 400] req/s, fan-out 0.5–3 per
// module; SLO κ × the fastest critical path with κ uniform in [1.2, 6].
#pragma once

#include <cstdint>

#include "engine/cost/cost_problem.h"

namespace servescope::engine {

struct RandomWorkloadOptions {
  bool spatial = true;  // offer concurrency 2
  int max_batch = 64;
};

CostProblem random_cost_problem(std::uint64_t seed, const RandomWorkloadOptions& options = {});

}  // namespace servescope::engine
