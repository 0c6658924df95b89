#include "engine/ppipe/lex_max_min.h"

#include <algorithm>

#include "engine/core/elapsed.h"

namespace servescope::engine {
namespace {

// Relative slack for "at the level": rates come back from solvers in floating point.
constexpr double kLevelTolerance = 1e-9;

// Tied choices explored below one stage-1 optimum; past it, a tie holds the first model.
constexpr int kTieBranches = 32;

using Floors = std::vector<std::optional<double>>;

struct Outcome {
  LevelAllocation allocation;
  std::vector<PlanSolveStage> stages;
  std::vector<double> sorted_levels;  // the plan's rates over weights, ascending: what lex compares
};

class Descent {
 public:
  Descent(LevelOracle& oracle, const std::vector<std::string>& names, const std::vector<double>& weights)
      : oracle_(oracle), names_(names), weights_(weights) {}

  // Holds, stage after stage, the models that cannot rise past the common level, from `floors`
  // (held models) and `stage` (the free models' common level under them).
  std::optional<Outcome> descend(Floors floors, CommonLevel stage, std::vector<PlanSolveStage> stages,
                                 WallClock::time_point start, bool held_unsaturated) {
    const std::size_t n = weights_.size();
    while (true) {
      const double z = stage.level;
      std::size_t free_count = 0;
      std::vector<double> at_level(n);
      for (std::size_t m = 0; m < n; ++m) {
        at_level[m] = floors[m] ? *floors[m] : z * weights_[m];
        free_count += floors[m] ? 0u : 1u;
      }
      std::vector<std::size_t> saturated;
      // The last free model was itself maximised by raise_common.
      for (std::size_t m = 0; m < n; ++m)
        if (!floors[m] && (free_count == 1 || !oracle_.can_exceed(m, at_level))) saturated.push_back(m);
      std::optional<CommonLevel> raised;
      if (saturated.empty()) {
        // Integer GPUs make the problem non-convex: every free model may rise alone, yet not all
        // together. In any solution one of them stays at z, so the next level is the best, over
        // the free models, of holding that one at z and raising the rest.
        std::vector<std::pair<std::size_t, CommonLevel>> tried;
        for (std::size_t m = 0; m < n; ++m) {
          if (floors[m]) continue;
          auto trial = floors;
          trial[m] = z * weights_[m];
          if (auto r = oracle_.raise_common(trial)) tried.emplace_back(m, std::move(*r));
        }
        if (tried.empty()) return finish(floors, stage, std::move(stages), true);  // stopped
        double best = 0;
        for (const auto& [m, r] : tried)
          best = std::max(best, r.level);
        std::erase_if(tried, [&](const auto& t) { return t.second.level < best * (1 - kLevelTolerance); });
        if (tried.size() > 1 && branches_left_ >= static_cast<int>(tried.size())) {
          // Equal next levels can still lead to different later ones: follow each, keep the best.
          branches_left_ -= static_cast<int>(tried.size());
          std::optional<Outcome> kept;
          for (auto& [m, r] : tried) {
            auto branch_floors = floors;
            branch_floors[m] = z * weights_[m];
            auto branch_stages = stages;
            branch_stages.push_back({z, {names_[m]}, seconds_since(start)});
            auto o = descend(std::move(branch_floors), std::move(r), std::move(branch_stages), WallClock::now(), true);
            if (o && (!kept || std::ranges::lexicographical_compare(kept->sorted_levels, o->sorted_levels)))
              kept = std::move(o);
          }
          return kept;
        }
        saturated = {tried.front().first};
        raised = std::move(tried.front().second);
        held_unsaturated = true;
      }
      PlanSolveStage record{z, {}, 0};
      for (const std::size_t m : saturated) {
        floors[m] = z * weights_[m];
        record.fixed_models.push_back(names_[m]);
        --free_count;
      }
      record.seconds = seconds_since(start);
      stages.push_back(std::move(record));
      if (free_count == 0) return finish(floors, stage, std::move(stages), held_unsaturated);
      start = WallClock::now();
      auto next = raised ? std::move(raised) : oracle_.raise_common(floors);
      if (!next) return finish(floors, stage, std::move(stages), true);  // stopped
      stage = std::move(*next);
    }
  }

 private:
  // With every model held at a level it cannot pass, the rates are settled and the last stage's
  // allocation stands; otherwise what is left goes to the models in turn.
  std::optional<Outcome> finish(const Floors& floors, CommonLevel& stage, std::vector<PlanSolveStage> stages,
                                bool unsettled) {
    Outcome out;
    out.stages = std::move(stages);
    out.allocation = std::move(stage.allocation);
    if (unsettled) {
      std::vector<double> held(weights_.size());
      for (std::size_t m = 0; m < held.size(); ++m)
        held[m] = floors[m] ? *floors[m] : stage.level * weights_[m];
      if (auto finished = oracle_.finish(held)) out.allocation = std::move(*finished);
    }
    for (std::size_t m = 0; m < weights_.size(); ++m)
      out.sorted_levels.push_back(out.allocation.model_rps[m] / weights_[m]);
    std::ranges::sort(out.sorted_levels);
    return out;
  }

  LevelOracle& oracle_;
  const std::vector<std::string>& names_;
  const std::vector<double>& weights_;
  int branches_left_ = kTieBranches;
};

}  // namespace

LexResult lex_max_min(LevelOracle& oracle, const std::vector<std::string>& model_names,
                      const std::vector<double>& weights, bool lexicographic) {
  LexResult out;
  const auto start = WallClock::now();
  auto stage = oracle.raise_common(Floors(weights.size()));
  if (!stage) return out;
  out.objective = stage->level;
  if (!lexicographic) {
    out.allocation = std::move(stage->allocation);
    return out;
  }
  Descent descent(oracle, model_names, weights);
  auto best = descent.descend(Floors(weights.size()), std::move(*stage), {}, start, false);
  if (!best) return out;
  out.allocation = std::move(best->allocation);
  out.stages = std::move(best->stages);
  return out;
}

}  // namespace servescope::engine
