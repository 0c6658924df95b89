#include "engine/ppipe/pipeline_solver.h"

#include <cmath>
#include <limits>
#include <memory>

#include "engine/core/elapsed.h"
#include "engine/ppipe/pipeline_columns.h"
#include "engine/ppipe/pipeline_frontier.h"
#include "engine/ppipe/pipeline_milp.h"
#include "model/core/error.h"
#include "model/core/text.h"

namespace servescope::engine {
namespace {

// Steps of the frontier's knapsack (GPU vectors × efficient options) above which Auto hands the
// problem to the MILP: about a second on one core (1.5e9 steps took 0.45 s on the bench machine,
// BENCHMARKS.md "PPipe"), and the memory its choices take.
constexpr double kFrontierWorkBudget = 3e9;
constexpr std::uint64_t kFrontierMemoryBudget = std::uint64_t{1} << 30;
// GPU vectors beyond which even the frontier's set-up (a few tables that long per type sequence)
// is not worth starting: 3 types of 125 GPUs each.
constexpr double kFrontierVectorBudget = 2e6;

PipelinePlan read_plan(PipelinePlan plan, const std::vector<PipelineColumn>& columns,
                       const std::vector<PlannerModel>& models, const std::vector<PlannerGpuType>& gpus,
                       const LevelAllocation& allocation) {
  for (const auto& use : allocation.uses) {
    const auto& col = columns[use.column];
    PlannedPipeline pipe;
    pipe.model = models[static_cast<std::size_t>(col.model)].profile->name;
    pipe.batch = col.batch;
    pipe.latency = col.latency;
    pipe.batch_forming = col.batch_forming;
    pipe.assigned_rps = use.rps;
    pipe.capacity_rps = std::numeric_limits<double>::infinity();
    for (std::size_t d = 0; d < col.parts.size(); ++d) {
      const auto& part = col.parts[d];
      PlannedPartition pp;
      pp.gpu = gpus[static_cast<std::size_t>(part.type)].gpu;
      pp.vgpu_divisor = part.divisor;
      pp.blocks = part.blocks;
      pp.gpus = use.gpus[d];
      pp.vgpus = pp.gpus * part.divisor;
      pp.latency = part.latency;
      pp.transfer = part.transfer;
      pp.transfer_bytes = part.transfer_bytes;
      pp.capacity_rps = pp.vgpus * part.per_vgpu_rps;
      pipe.capacity_rps = std::min(pipe.capacity_rps, pp.capacity_rps);
      pipe.partitions.push_back(std::move(pp));
    }
    plan.models[static_cast<std::size_t>(col.model)].throughput_rps += use.rps;
    plan.pipelines.push_back(std::move(pipe));
  }
  return plan;
}

}  // namespace

void check_planner_inputs(const std::vector<PlannerModel>& models, const std::vector<PlannerGpuType>& gpus,
                          const PpipeOptions& options) {
  if (models.empty()) throw QueryError("nothing to plan: no models");
  if (gpus.empty()) throw QueryError("nothing to plan on: the cluster has no GPUs");
  if (options.max_partitions < 1 || options.max_partitions > 3)
    throw QueryError("partitions per pipeline must be 1, 2 or 3 (got " + std::to_string(options.max_partitions) + ")");
  if (!(options.slo_margin >= 0 && options.slo_margin < 1))
    throw QueryError("the SLO margin must be in [0, 1) (got " + std::to_string(options.slo_margin) + ")");
  if (options.solver == PpipeSolver::Frontier && gpus.size() > FrontierSearch::kMaxTypes)
    throw QueryError("the frontier solver handles up to " + std::to_string(FrontierSearch::kMaxTypes) +
                     " GPU types and the cluster has " + std::to_string(gpus.size()) + "; use the MILP");
  for (const auto& m : models) {
    if (!m.profile) throw QueryError("a model without a profile");
    if (m.slo <= Duration()) throw QueryError(m.profile->name + ": the SLO must be positive");
    if (!(m.weight > 0)) throw QueryError(m.profile->name + ": the workload weight must be positive");
  }
}

PipelinePlan solve_pipelines(const std::vector<PlannerModel>& models, const std::vector<PlannerGpuType>& gpus,
                             const PpipeOptions& options, const std::string& system,
                             const std::vector<std::optional<double>>& lambda) {
  check_planner_inputs(models, gpus, options);
  const auto start = WallClock::now();
  PipelinePlan plan;
  plan.system = system;
  const auto sequences = enumerate_type_sequences(static_cast<int>(gpus.size()), options.max_partitions);
  std::vector<PipelineColumn> columns;
  std::vector<std::string> names;
  std::vector<double> weights;
  for (std::size_t m = 0; m < models.size(); ++m) {
    const auto& p = *models[m].profile;
    PlannedModel pm{p.name, models[m].slo, planning_slo(models[m].slo, options.slo_margin), models[m].weight, 0};
    const auto before = columns.size();
    add_pipeline_columns(static_cast<int>(m), p, gpus, sequences, pm.planning_slo, lambda[m], options, columns);
    if (columns.size() == before)
      plan.notes.push_back(p.name + ": no pipeline meets " + std::to_string(pm.planning_slo.to_ms()) +
                           " ms (the SLO less the margin) on this cluster; it gets no GPUs");
    plan.models.push_back(std::move(pm));
    names.push_back(p.name);
    weights.push_back(models[m].weight);
  }
  const auto enumerated = columns.size();
  columns = prune_dominated(std::move(columns));
  auto& stats = plan.solve;
  stats.enumerated_columns = static_cast<int>(enumerated);
  stats.columns = static_cast<int>(columns.size());
  const bool lexicographic = options.objective == PpipeObjective::LexMaxMin && models.size() > 1;
  stats.objective_kind = models.size() == 1 ? "max-throughput" : to_string(options.objective);
  if (columns.empty()) {
    stats.status = "infeasible";
    stats.proven_optimal = true;  // no column meets the SLO: zero is all there is
    return plan;
  }

  std::unique_ptr<FrontierSearch> frontier;
  const double vectors = FrontierSearch::vectors(gpus);
  if (options.solver == PpipeSolver::Frontier && vectors > kFrontierVectorBudget)
    throw QueryError("the frontier search would tabulate " + format_number(vectors) +
                     " GPU vectors on this cluster (more than " + format_number(kFrontierVectorBudget) +
                     "); use the MILP");
  if (options.solver == PpipeSolver::Auto && gpus.size() <= FrontierSearch::kMaxTypes &&
      vectors > kFrontierVectorBudget)
    plan.notes.push_back("the cluster has " + format_number(vectors) +
                         " GPU vectors, too many for the frontier search; solved with the MILP");
  if (options.solver != PpipeSolver::Milp && gpus.size() <= FrontierSearch::kMaxTypes &&
      vectors <= kFrontierVectorBudget) {
    frontier =
        std::make_unique<FrontierSearch>(columns, gpus, weights, !options.several_configs_per_sequence, options.cancel);
    const bool too_big = frontier->memory_bytes() > kFrontierMemoryBudget;
    if (too_big && options.solver == PpipeSolver::Frontier)
      throw QueryError("the frontier search would need " + format_bytes(frontier->memory_bytes()) +
                       " on this cluster (more than " + format_bytes(kFrontierMemoryBudget) + "); use the MILP");
    if (options.solver == PpipeSolver::Auto && (too_big || frontier->work() > kFrontierWorkBudget)) {
      plan.notes.push_back("the frontier search would take " + format_number(frontier->work()) + " steps and " +
                           format_bytes(frontier->memory_bytes()) + " here; solved with the MILP instead");
      frontier.reset();
    }
  }
  LexResult result;
  if (frontier) {
    stats.solver = "frontier";
    if (frontier->build()) result = lex_max_min(*frontier, names, weights, lexicographic);
    const bool done = result.allocation && !frontier->cancelled();
    stats.status = done ? "optimal" : "cancelled";
    stats.proven_optimal = done;
  } else {
    stats.solver = "milp";
    PipelineMilp milp(columns, gpus, weights, options);
    stats.variables = milp.variables();
    stats.rows = milp.rows();
    result = lex_max_min(milp, names, weights, lexicographic);
    const auto& first = milp.first();
    stats.status = to_string(first.status);
    stats.proven_optimal = first.status == MilpStatus::Optimal && milp.all_proven();
    if (first.status == MilpStatus::Optimal && !milp.all_proven())
      plan.notes.emplace_back(
          "a later lexicographic stage stopped at the time limit: the plan keeps the max-min "
          "optimum, but may leave GPUs a longer solve would use");
    stats.best_bound = first.best_bound;
    stats.gap = first.gap;
  }
  // The first stage's optimum, as the paper reports it: z, or one model's throughput.
  stats.objective = models.size() == 1 ? result.objective * weights[0] : result.objective;
  if (frontier) stats.best_bound = stats.objective;
  stats.stages = std::move(result.stages);
  if (result.allocation) plan = read_plan(std::move(plan), columns, models, gpus, *result.allocation);
  stats.seconds = seconds_since(start);
  return plan;
}

}  // namespace servescope::engine
