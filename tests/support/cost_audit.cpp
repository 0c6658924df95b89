#include "tests/support/cost_audit.h"

#include <chrono>
#include <cmath>
#include <optional>

#include "engine/cost/brute_force.h"
#include "engine/cost/random_workload.h"
#include "tests/support/cost_plan_checker.h"

namespace servescope::test {
namespace {

using namespace engine;

constexpr double kEqualTolerance = 1e-6;  // relative
constexpr std::uint64_t kMaxNodes = 20'000'000;

// The optimum in a space: the whole problem, or concurrency 1 only (Harpagon's space and most
// baselines'). nullopt when the space leaves a module nothing or the brute force ran out.
std::optional<CostPlan> optimum(CostProblem p, bool spatial, int& incomplete) {
  if (!spatial)
    for (auto& m : p.modules) {
      std::erase_if(m.configs, [](const CostConfig& c) { return c.concurrency != 1; });
      if (m.configs.empty() && !m.model.empty()) return std::nullopt;
    }
  BruteForceOptions options;
  options.max_nodes = kMaxNodes;
  BruteForceStats stats;
  auto plan = plan_brute_force(p, options, &stats);
  if (!stats.complete) {
    ++incomplete;
    return std::nullopt;
  }
  return plan;
}

int modules_without_machines(const CostProblem& p, const CostPlan& plan) {
  int n = 0;
  for (std::size_t m = 0; m < p.modules.size(); ++m)
    if (!p.modules[m].is_fixed() && (m >= plan.modules.size() || plan.modules[m].machines() == 0)) ++n;
  return n;
}

// Piccolo and Harpagon promise a plan wherever one exists in their space (docs/reproduction/cost.md
// "The audit"); the baselines' one- and two-configuration schedulers and quantized splits do not.
bool promises_a_plan(const std::string& preset) {
  return preset == "piccolo" || preset == "harpagon" || preset == "piccolo-paper" || preset == "harpagon-paper";
}

}  // namespace

int CostAudit::wrongly_refused() const {
  int n = 0;
  for (const auto& [name, p] : presets)
    n += p.wrongly_refused;
  return n;
}

std::vector<std::string> all_cost_presets() {
  auto out = cost_plan_systems();
  for (const std::string base : {"piccolo", "harpagon"})
    for (const auto& v : cost_plan_ablations())
      out.push_back(base + "-" + v);
  return out;
}

CostAudit audit_cost_planners(std::uint64_t first_seed, std::uint64_t last_seed,
                              const std::vector<std::string>& presets) {
  CostAudit audit;
  audit.order = presets;
  for (std::uint64_t seed = first_seed; seed <= last_seed; ++seed)
    for (const double slo_scale : {1.0, 0.5}) {
      auto p = random_cost_problem(seed, RandomWorkloadOptions::audit());
      p.slo = Duration::from_s(p.slo.to_s() * slo_scale);
      ++audit.workloads;
      const auto best_full = optimum(p, true, audit.incomplete);
      const auto best_whole = optimum(p, false, audit.incomplete);
      for (const auto& preset : presets) {
        const auto options = cost_plan_preset(preset);
        const auto& best = options.spatial ? best_full : best_whole;
        auto& s = audit.presets[preset];
        const auto start = std::chrono::steady_clock::now();
        const auto plan = plan_cost(p, options);
        const double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
        s.time_sum_ms += ms;
        s.time_max_ms = std::max(s.time_max_ms, ms);
        if (!plan.feasible) {
          ++(plan.unplannable ? s.unplannable : s.refused);
          if (!plan.unplannable && promises_a_plan(preset) && best && best->feasible) ++s.wrongly_refused;
          continue;
        }
        ++s.plans;
        ++audit.plans;
        audit.dropped += modules_without_machines(p, plan);
        if (!check_cost_plan(p, plan).empty()) ++audit.rejected;
        if (!best || !best->feasible) continue;
        const double excess = plan.cost / best->cost - 1;
        if (excess < -kEqualTolerance) ++audit.below_optimum;
        ++s.compared;
        if (std::abs(excess) <= kEqualTolerance) ++s.equal;
        s.excess_sum += excess;
        if (excess > s.excess_max) {
          s.excess_max = excess;
          s.excess_seed = seed;
        }
      }
    }
  return audit;
}

}  // namespace servescope::test
