#include "engine/ppipe/lex_max_min.h"

#include <chrono>

namespace servescope::engine {
namespace {

double seconds_since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

// Relative slack for "at the level": rates come back from solvers in floating point.
constexpr double kLevelTolerance = 1e-9;

}  // namespace

LexResult lex_max_min(LevelOracle& oracle, const std::vector<std::string>& model_names,
                      const std::vector<double>& weights, bool lexicographic) {
  const std::size_t n = weights.size();
  LexResult out;
  std::vector<std::optional<double>> floors(n);
  auto start = std::chrono::steady_clock::now();
  auto stage = oracle.raise_common(floors);
  if (!stage) return out;
  out.objective = stage->level;
  if (!lexicographic) {
    out.allocation = std::move(stage->allocation);
    return out;
  }
  // Set when a stage had to hold a model that could still rise alone (see below): then the
  // total is not settled by the floors and the last step is worth its solves.
  bool held_unsaturated = false;
  std::size_t free_count = n;
  while (true) {
    const double z = stage->level;
    std::vector<double> at_level(n);
    for (std::size_t m = 0; m < n; ++m)
      at_level[m] = floors[m] ? *floors[m] : z * weights[m];
    std::vector<std::size_t> saturated;
    // The last free model was itself maximised by raise_common.
    for (std::size_t m = 0; m < n; ++m)
      if (!floors[m] && (free_count == 1 || !oracle.can_exceed(m, at_level))) saturated.push_back(m);
    if (saturated.empty()) {
      // Integer GPUs make the problem non-convex: every free model may rise alone, yet not all
      // together. Hold the first one at the level, as the stage's solution has it.
      for (std::size_t m = 0; m < n && saturated.empty(); ++m)
        if (!floors[m] && stage->allocation.model_rps[m] <= z * weights[m] * (1 + kLevelTolerance) + 1e-12)
          saturated.push_back(m);
      if (saturated.empty())
        for (std::size_t m = 0; m < n && saturated.empty(); ++m)
          if (!floors[m]) saturated.push_back(m);
      held_unsaturated = true;
    }
    PlanSolveStage record;
    record.level = z;
    for (const std::size_t m : saturated) {
      floors[m] = z * weights[m];
      record.fixed_models.push_back(model_names[m]);
      --free_count;
    }
    record.seconds = seconds_since(start);
    out.stages.push_back(std::move(record));
    if (free_count == 0) break;
    start = std::chrono::steady_clock::now();
    auto next = oracle.raise_common(floors);
    if (!next) break;  // stopped: keep the last complete stage's allocation
    stage = std::move(next);
  }
  if (held_unsaturated || free_count > 0) {
    std::vector<double> held(n);
    for (std::size_t m = 0; m < n; ++m)
      held[m] = floors[m] ? *floors[m] : stage->level * weights[m];
    if (auto finished = oracle.finish(held)) {
      out.allocation = std::move(finished);
      return out;
    }
  }
  out.allocation = std::move(stage->allocation);
  return out;
}

}  // namespace servescope::engine
