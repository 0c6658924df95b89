// PPipe's MILP over pipeline columns (seed 000 Appendix A; digest §2.5–§2.6, with every fix of
// §2.5: pipeline-used binaries, the linearised min, whole GPUs per partition), asked the
// questions of lexicographic max-min. Each question is a fresh GLPK solve of the same rows with
// its own objective and floors; the time limit covers them all.
#pragma once

#include <vector>

#include "engine/core/elapsed.h"
#include "engine/milp/milp_problem.h"
#include "engine/ppipe/lex_max_min.h"
#include "engine/ppipe/pipeline_columns.h"

namespace servescope::engine {

class PipelineMilp final : public LevelOracle {
 public:
  PipelineMilp(const std::vector<PipelineColumn>& columns, const std::vector<PlannerGpuType>& gpus,
               const std::vector<double>& weights, const PpipeOptions& options);

  std::optional<CommonLevel> raise_common(const std::vector<std::optional<double>>& floor_rps) override;
  bool can_exceed(std::size_t m, const std::vector<double>& floor_rps) override;
  std::optional<LevelAllocation> finish(const std::vector<double>& floor_rps) override;

  int variables() const { return base_.variable_count(); }
  int rows() const { return base_.row_count(); }
  // The first solve's result (the max-min stage): status, bound and gap for the plan's stats.
  const MilpResult& first() const { return first_; }
  // Whether every solve was proven; a later stage that hit the time limit clears it.
  bool all_proven() const { return all_proven_; }

 private:
  // The base rows plus floors Σ_{c∈m} x_c ≥ floor_rps[m] for the models that have one.
  MilpProblem with_floors(const std::vector<std::optional<double>>& floor_rps) const;
  MilpResult run(const MilpProblem& problem, bool cuts, std::optional<double> stop_at);
  LevelAllocation allocation_of(const MilpResult& r) const;

  const std::vector<PipelineColumn>& columns_;
  std::vector<double> weights_;
  PpipeOptions options_;
  WallClock::time_point start_;  // the time limit covers every solve since
  MilpProblem base_{Sense::Maximize};
  std::vector<int> x_;               // per column: its rate
  std::vector<std::vector<int>> h_;  // per column and partition: its whole GPUs
  std::vector<std::vector<int>> x_of_model_;
  MilpResult first_;
  bool solved_once_ = false;
  bool all_proven_ = true;
};

}  // namespace servescope::engine
