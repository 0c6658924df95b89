// DART-r, the replicated-DART baseline of PPipe (seed 000 §7.1; digest §2.8): one high- and one
// low-class GPU form a pair that runs the best ≤ 2-partition plan for the pair; the pair is
// replicated min(N_H, N_L) times and the majority class's leftovers run whole models alone.
// Several models first split the cluster as the NP plan does, then share its unused GPUs evenly
// (the artifact's construction), and each model runs DART-r on its own GPUs.
#include <algorithm>
#include <array>
#include <limits>
#include <map>
#include <tuple>

#include "engine/ppipe/pipeline_solver.h"
#include "model/core/error.h"

namespace servescope::engine {
namespace {

// Whole-model latency at batch 1 on a type, or "never" when the profile has no entry for it.
Duration whole_model_latency(const ModelProfile& profile, const PlannerGpuType& type) {
  try {
    return profile.latency({type.gpu, GpuShare::whole(), 1, std::nullopt});
  } catch (const QueryError&) {
    return Duration::max();
  }
}

void scale_pipelines(PipelinePlan& plan, int times) {
  for (auto& pipe : plan.pipelines) {
    pipe.assigned_rps *= times;
    pipe.capacity_rps *= times;
    for (auto& part : pipe.partitions) {
      part.vgpus *= times;
      part.gpus *= times;
      part.capacity_rps *= times;
    }
  }
  for (auto& m : plan.models)
    m.throughput_rps *= times;
  plan.solve.objective *= times;
  plan.solve.best_bound *= times;
}

// Moves `other`'s pipelines and notes into `into` and adds its solve effort.
void add_pipelines_and_effort(PipelinePlan& into, PipelinePlan& other) {
  for (auto& p : other.pipelines)
    into.pipelines.push_back(std::move(p));
  for (auto& n : other.notes)
    into.notes.push_back(std::move(n));
  into.solve.seconds += other.solve.seconds;
  into.solve.enumerated_columns += other.solve.enumerated_columns;
  into.solve.columns += other.solve.columns;
  into.solve.variables += other.solve.variables;
  into.solve.rows += other.solve.rows;
  into.solve.proven_optimal = into.solve.proven_optimal && other.solve.proven_optimal;
}

// Adds `other`'s pipelines, throughput and solve effort to `into` (same single model).
void absorb(PipelinePlan& into, PipelinePlan other) {
  into.models[0].throughput_rps += other.models[0].throughput_rps;
  into.solve.objective += other.solve.objective;
  into.solve.best_bound += other.solve.best_bound;
  add_pipelines_and_effort(into, other);
}

// DART-r for one model on `gpus` (two types; a count may be 0).
PipelinePlan dart_r_one_model(const PlannerModel& model, const std::vector<PlannerGpuType>& gpus,
                              const PpipeOptions& options, std::optional<double> lambda) {
  const auto& profile = *model.profile;
  PipelinePlan plan;
  plan.system = "dart-r";
  plan.models.push_back({profile.name, model.slo, planning_slo(model.slo, options.slo_margin), model.weight, 0});
  plan.solve.status = "optimal";
  plan.solve.proven_optimal = true;
  // High class: the faster type for the whole model at batch 1.
  const std::size_t high = whole_model_latency(profile, gpus[0]) <= whole_model_latency(profile, gpus[1]) ? 0 : 1;
  const std::size_t low = 1 - high;
  const int pairs = std::min(gpus[high].count, gpus[low].count);
  if (pairs > 0) {
    PpipeOptions pair_options = options;
    pair_options.max_partitions = std::min(2, options.max_partitions);
    pair_options.vgpu_divisors = {1};
    pair_options.several_configs_per_sequence = false;
    auto pair_types = gpus;
    pair_types[high].count = 1;
    pair_types[low].count = 1;
    auto pair = solve_pipelines({model}, pair_types, pair_options, "dart-r", {lambda});
    // Replicate the pair: the same pipelines with `pairs` times the GPUs.
    scale_pipelines(pair, pairs);
    pair.notes.push_back(profile.name + ": " + std::to_string(pairs) + " replicated pairs of " + gpus[high].gpu +
                         " + " + gpus[low].gpu);
    plan.solve.status = pair.solve.status;
    absorb(plan, std::move(pair));
  }
  const std::size_t major = gpus[high].count > gpus[low].count ? high : low;
  const int leftover = gpus[major].count - pairs;
  if (leftover > 0) {
    std::vector<PlannerGpuType> rest{gpus[major]};
    rest[0].count = leftover;
    auto alone = plan_np({model}, rest, options);
    alone.notes.push_back(profile.name + ": " + std::to_string(leftover) + " leftover " + gpus[major].gpu +
                          (alone.models[0].throughput_rps > 0
                               ? " GPUs run the whole model"
                               : " GPUs stay idle: the whole model misses the SLO less the margin on them"));
    if (plan.pipelines.empty()) plan.solve.status = alone.solve.status;
    absorb(plan, std::move(alone));
  }
  return plan;
}

// GPUs of each type no model holds yet go to all models evenly, the remainder to the first ones.
void share_unused(std::vector<std::array<int, 2>>& split, const std::vector<PlannerGpuType>& gpus) {
  const auto n = static_cast<int>(split.size());
  for (std::size_t k = 0; k < 2; ++k) {
    int held = 0;
    for (const auto& s : split)
      held += s[k];
    const int unused = gpus[k].count - held;
    for (std::size_t m = 0; m < split.size(); ++m)
      split[m][k] += unused / n + (static_cast<int>(m) < unused % n);
  }
}

// Searches how several models split the two GPU pools, each running DART-r on its share, for
// the largest smallest throughput over weight. Each (model, share) is solved once.
class SplitSearch {
 public:
  using Split = std::vector<std::array<int, 2>>;

  SplitSearch(const std::vector<PlannerModel>& models, const std::vector<PlannerGpuType>& gpus,
              const PpipeOptions& options, const std::vector<std::optional<double>>& lambda)
      : models_(models), gpus_(gpus), options_(options), lambda_(lambda) {}

  double rate(std::size_t m, const std::array<int, 2>& a) {
    const auto key = std::make_tuple(m, a[0], a[1]);
    if (const auto it = memo_.find(key); it != memo_.end()) return it->second;
    return memo_[key] = dart_r_one_model(models_[m], share(a), options_, lambda_[m]).models[0].throughput_rps;
  }

  double z_of(const Split& split) {
    double z = std::numeric_limits<double>::infinity();
    for (std::size_t m = 0; m < models_.size(); ++m)
      z = std::min(z, rate(m, split[m]) / models_[m].weight);
    return z;
  }

  // Greedy max-min: the model furthest behind takes the addition of one GPU of a pool (or a
  // pair) that raises it most. per_share: rank additions by gain per share of the pools they
  // draw from, so a scarce high-class GPU is not spent where a few plentiful low-class ones would
  // do; else by raw gain.
  Split greedy(bool per_share) {
    Split split(models_.size(), {0, 0});
    std::array<int, 2> free{gpus_[0].count, gpus_[1].count};
    std::vector<char> active(models_.size(), 1);
    while (free[0] + free[1] > 0) {
      std::optional<std::size_t> worst;
      for (std::size_t m = 0; m < models_.size(); ++m)
        if (active[m] &&
            (!worst || rate(m, split[m]) / models_[m].weight < rate(*worst, split[*worst]) / models_[*worst].weight))
          worst = m;
      if (!worst) break;
      const auto now = rate(*worst, split[*worst]);
      double best_gain = 0;
      std::array<int, 2> best_add{0, 0};
      for (const std::array<int, 2> add : {std::array<int, 2>{1, 0}, {0, 1}, {1, 1}}) {
        if (add[0] > free[0] || add[1] > free[1]) continue;
        const double share =
            per_share ? add[0] / static_cast<double>(gpus_[0].count) + add[1] / static_cast<double>(gpus_[1].count)
                      : 1.0;
        const double gain = (rate(*worst, {split[*worst][0] + add[0], split[*worst][1] + add[1]}) - now) / share;
        if (gain > best_gain * (1 + 1e-12) + 1e-9) {
          best_gain = gain;
          best_add = add;
        }
      }
      if (best_gain <= 0) {
        active[*worst] = 0;  // more GPUs do not help it: the rest go to the others
        continue;
      }
      for (std::size_t k = 0; k < 2; ++k) {
        split[*worst][k] += best_add[k];
        free[k] -= best_add[k];
      }
    }
    share_unused(split, gpus_);
    return split;
  }

  // One GPU moved between two models where that raises the minimum; false when none does. It
  // frees a low-class GPU that NP handed a model able to run whole on it, so others can pair.
  bool improve(Split& split) {
    const double z_now = z_of(split);
    for (std::size_t from = 0; from < models_.size(); ++from)
      for (std::size_t to = 0; to < models_.size(); ++to)
        for (std::size_t k = 0; k < 2; ++k) {
          if (from == to || split[from][k] == 0) continue;
          auto moved = split;
          --moved[from][k];
          ++moved[to][k];
          if (z_of(moved) > z_now * (1 + 1e-9)) {
            split = std::move(moved);
            return true;
          }
        }
    return false;
  }

  std::vector<PlannerGpuType> share(const std::array<int, 2>& a) const {
    auto mine = gpus_;
    mine[0].count = a[0];
    mine[1].count = a[1];
    return mine;
  }

 private:
  const std::vector<PlannerModel>& models_;
  const std::vector<PlannerGpuType>& gpus_;
  const PpipeOptions& options_;
  const std::vector<std::optional<double>>& lambda_;
  std::map<std::tuple<std::size_t, int, int>, double> memo_;
};

// The artifact's split: each model keeps the GPUs NP gives it, and the GPUs NP leaves unused are
// shared evenly, the remainder going to the first models.
SplitSearch::Split np_split(const PipelinePlan& np, const std::vector<PlannerModel>& models,
                            const std::vector<PlannerGpuType>& gpus) {
  SplitSearch::Split split(models.size(), {0, 0});
  for (const auto& pipe : np.pipelines) {
    const auto m = static_cast<std::size_t>(
        std::ranges::find(models, pipe.model, [](const PlannerModel& pm) { return pm.profile->name; }) -
        models.begin());
    for (const auto& part : pipe.partitions)
      split[m][part.gpu == gpus[0].gpu ? 0 : 1] += part.gpus;
  }
  share_unused(split, gpus);
  return split;
}

}  // namespace

PipelinePlan plan_dart_r(const std::vector<PlannerModel>& models, const std::vector<PlannerGpuType>& gpus,
                         const PpipeOptions& options) {
  check_planner_inputs(models, gpus, options);
  if (gpus.size() != 2)
    throw QueryError(
        "DART-r pairs a high-class with a low-class GPU: it needs exactly two GPU types (the cluster has " +
        std::to_string(gpus.size()) + ")");
  // λ̂ for the batch-forming estimate and, for several models, the GPU split: the NP plan.
  std::optional<PipelinePlan> np;
  if (models.size() > 1 || (options.batch_forming && !options.batch_forming_rate_rps))
    np = plan_np(models, gpus, max_min_np_options(options));
  std::vector<std::optional<double>> lambda(models.size());
  if (options.batch_forming)
    for (std::size_t m = 0; m < models.size(); ++m) {
      if (options.batch_forming_rate_rps)
        lambda[m] = options.batch_forming_rate_rps;
      else if (np->models[m].throughput_rps > 0)
        lambda[m] = np->models[m].throughput_rps;
    }
  if (models.size() == 1) return dart_r_one_model(models[0], gpus, options, lambda[0]);

  // NP's max-min optimum is rarely unique, and which of its ties the solver returns decides how
  // many pairs each model can form. Greedy max-min splits over DART-r's own throughput, then a
  // hill climb, guard against a poor tie: the baseline is the best found, never weaker than the
  // artifact's.
  SplitSearch search(models, gpus, options, lambda);
  auto split = np_split(*np, models, gpus);
  bool searched = false;
  for (const bool per_share : {false, true})
    if (auto g = search.greedy(per_share); search.z_of(g) > search.z_of(split) * (1 + 1e-9)) {
      split = std::move(g);
      searched = true;
    }
  for (int step = 0; step < 4 * (gpus[0].count + gpus[1].count) && search.improve(split); ++step)
    searched = true;

  PipelinePlan plan;
  plan.system = "dart-r";
  plan.solve.status = "optimal";
  plan.solve.proven_optimal = np->solve.proven_optimal;
  plan.solve.seconds = np->solve.seconds;
  double z = std::numeric_limits<double>::infinity();
  for (std::size_t m = 0; m < models.size(); ++m) {
    const auto mine = search.share(split[m]);
    plan.notes.push_back(models[m].profile->name + ": " + std::to_string(mine[0].count) + " " + mine[0].gpu + " + " +
                         std::to_string(mine[1].count) + " " + mine[1].gpu +
                         (searched ? " from the max-min split search" : " after the NP split"));
    auto one = dart_r_one_model(models[m], mine, options, lambda[m]);
    z = std::min(z, one.models[0].throughput_rps / models[m].weight);
    plan.models.push_back(one.models[0]);
    if (!one.solve.proven_optimal) plan.solve.status = one.solve.status;
    add_pipelines_and_effort(plan, one);
  }
  // The max-min objective the other planners report: the smallest throughput over weight.
  plan.solve.objective = plan.solve.best_bound = z;
  return plan;
}

}  // namespace servescope::engine
