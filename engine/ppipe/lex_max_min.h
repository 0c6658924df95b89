// Lexicographic max-min over the models of a pooled-pipeline plan (docs/reproduction/ppipe.md
// "Lexicographic max-min"; PPipe, seed 000 §4.2, stops after its first stage). Stage 1 is the
// paper's objective: the largest z with x_m ≥ z·w_m for every model. Each later stage holds the
// models that cannot go higher at the level they reached and raises the rest together, until
// every model is held. Whole GPUs make the problem non-convex: when every free model could rise
// alone but not all together, the stage tries holding each in turn and keeps the best; equal
// bests are each followed to the end (32 branches at most, then the first is held, the one place
// the result may fall short of the exact lexicographic optimum), and a last step hands what is
// left to the models in turn. The stages only ask questions of a LevelOracle, so the exact
// frontier search and the MILP share them.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include "engine/ppipe/pipeline_plan.h"

namespace servescope::engine {

// The GPUs a solver gives one pipeline column, per partition, and the rate it serves.
struct ColumnUse {
  std::size_t column = 0;
  std::vector<int> gpus;  // physical GPUs per partition
  double rps = 0;
};

struct LevelAllocation {
  std::vector<ColumnUse> uses;  // by column
  std::vector<double> model_rps;
};

struct CommonLevel {
  double level = 0;  // z: every free model's rate over its weight is at least this
  LevelAllocation allocation;
};

class LevelOracle {
 public:
  virtual ~LevelOracle() = default;
  // The largest z with every free model (no floor) at ≥ z·w_m and every held one at ≥ its floor.
  // Nullopt when the solver stopped (time limit, cancel) without an answer.
  virtual std::optional<CommonLevel> raise_common(const std::vector<std::optional<double>>& floor_rps) = 0;
  // Whether model m can serve more than floor_rps[m] while every other keeps its floor.
  virtual bool can_exceed(std::size_t m, const std::vector<double>& floor_rps) = 0;
  // An allocation meeting every floor, with as much total throughput as the solver finds.
  virtual std::optional<LevelAllocation> finish(const std::vector<double>& floor_rps) = 0;
};

struct LexResult {
  std::optional<LevelAllocation> allocation;  // empty when stage 1 found nothing
  double objective = 0;                       // stage 1's z
  std::vector<PlanSolveStage> stages;         // lexicographic only
};

// `lexicographic` false stops after stage 1 (the paper's objective).
LexResult lex_max_min(LevelOracle& oracle, const std::vector<std::string>& model_names,
                      const std::vector<double>& weights, bool lexicographic);

}  // namespace servescope::engine
