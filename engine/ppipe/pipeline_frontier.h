// The exact frontier search for pooled-pipeline plans (docs/reproduction/ppipe.md "Frontier
// search"; an alternative to the MILP of seed 000 Appendix A that finds the same optimum).
// Models share nothing but the GPUs, so each model's best throughput on every vector of GPUs per
// type — its frontier F_m(n) — can be computed alone: a group knapsack over its type sequences,
// one column and one pool size per sequence (digest §2.5 fix 1), whole GPUs per partition. The
// models are then joined by asking whether demands D_m fit together: each model's minimal GPU
// vectors for D_m, merged model by model into "the fewest GPUs of the third type for given
// counts of the first two". A search over the frontier values answers max-min and every later
// stage of lexicographic max-min with proof. Up to three GPU types.
#pragma once

#include <array>
#include <atomic>
#include <cstdint>
#include <optional>
#include <vector>

#include "engine/ppipe/lex_max_min.h"
#include "engine/ppipe/pipeline_columns.h"

namespace servescope::engine {

class FrontierSearch final : public LevelOracle {
 public:
  static constexpr int kMaxTypes = 3;

  // Columns as enumerated and pruned. With `one_column_per_sequence` a model's columns of one
  // type sequence are alternatives (the paper's rule); without it each column is its own pool.
  // Finds each group's efficient pool sizes, which is cheap; build() does the rest. At most
  // kMaxTypes GPU types.
  FrontierSearch(const std::vector<PipelineColumn>& columns, const std::vector<PlannerGpuType>& gpus,
                 const std::vector<double>& weights, bool one_column_per_sequence, const std::atomic<bool>* cancel);

  // GPU vectors of `gpus` (Π (N_k + 1)), every table's length: the planner checks it before
  // constructing, since even finding the efficient options takes a few tables of that length.
  static double vectors(const std::vector<PlannerGpuType>& gpus);

  // The steps build() will take (GPU vectors × efficient options): the planner compares it with
  // a budget before choosing this search.
  double work() const { return work_; }
  // What build() will hold: F and one choice per GPU vector for every group of every model.
  std::uint64_t memory_bytes() const;
  // Builds every model's frontier. False when cancelled.
  bool build();

  std::optional<CommonLevel> raise_common(const std::vector<std::optional<double>>& floor_rps) override;
  bool can_exceed(std::size_t m, const std::vector<double>& floor_rps) override;
  std::optional<LevelAllocation> finish(const std::vector<double>& floor_rps) override;

  bool cancelled() const { return cancelled_; }
  int feasibility_checks() const { return checks_; }

 private:
  // One way to run one group: a column and its GPUs per partition.
  struct Option {
    std::size_t column = 0;
    std::vector<int> gpus;                // per partition
    std::array<std::int32_t, 3> usage{};  // per GPU type
    double rps = 0;
  };
  struct Group {
    std::vector<Option> options;       // efficient ones only
    std::vector<std::int32_t> choice;  // per state: the option F takes here, or −1
  };
  struct ModelFrontier {
    std::vector<Group> groups;
    std::vector<double> best;    // F_m per state
    std::vector<double> values;  // F_m's distinct values, ascending
  };

  using GpuVector = std::array<std::int32_t, 3>;
  std::size_t state(const GpuVector& a) const {
    return (static_cast<std::size_t>(a[0]) * dims_[1] + static_cast<std::size_t>(a[1])) * dims_[2] +
           static_cast<std::size_t>(a[2]);
  }
  std::vector<Option> efficient_options(const std::vector<std::size_t>& group) const;
  void build_model(ModelFrontier& f);
  // Per model, a GPU vector meeting its demand, all within the cluster; nullopt if none.
  std::optional<std::vector<GpuVector>> fit(const std::vector<double>& demand_rps);
  LevelAllocation allocation_of(const std::vector<GpuVector>& vectors) const;
  // The smallest frontier value of model m above `rps`; nullopt when none is.
  std::optional<double> next_value(std::size_t m, double rps) const;

  const std::vector<PipelineColumn>& columns_;
  std::vector<double> weights_;
  GpuVector caps_{};  // N_k, 0 for absent types
  std::array<std::size_t, 3> dims_{1, 1, 1};
  std::size_t states_ = 1;
  std::vector<ModelFrontier> models_;
  const std::atomic<bool>* cancel_;
  double work_ = 0;
  bool cancelled_ = false;
  int checks_ = 0;
};

}  // namespace servescope::engine
