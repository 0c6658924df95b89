// The cost planner: Piccolo (seed 001 §3.5), Harpagon (seed 004 §2.1), their baselines (Nexus,
// Scrooge, InferLine, Clipper) and every ablation as presets of one pipeline — restrict the
// configuration space, split the SLO into module budgets, schedule each module (Alg. 1 or the
// one/two-configuration schedulers, fallback, dummies), hand leftover latency to the residual
// tiers, and check the result. Deterministic: no clocks, no randomness, stable tie-breaks.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "engine/cost/latency_splitter.h"
#include "engine/cost/module_scheduler.h"

namespace servescope::engine {

enum class SplitMethod { LatencyCost, Throughput, Quantized, Even };
enum class SplitCostMode { Fluid, Scheduled };  // how the splitter prices an option (Harpagon gap G5)
enum class ReassignMode { None, One, Full };
enum class HardwareChoice { All, BestSingle, Cheapest, Priciest };

struct CostPlanOptions {
  std::string system = "harpagon";
  ModuleSchedulerOptions module;
  SplitMethod split = SplitMethod::LatencyCost;
  SplitCostMode split_cost = SplitCostMode::Scheduled;
  bool stretch_budgets = false;                   // Piccolo: scale budgets so the critical path sums to the SLO
  Duration quantum = Duration::milliseconds(10);  // the quantized split's step
  bool node_merger = true;
  int cost_direct_rounds = 3;  // 0: off
  bool pair_exchange = false;  // after the split, trade latency between pairs of modules (ours)
  ReassignMode reassign = ReassignMode::Full;
  HardwareChoice hardware = HardwareChoice::All;
  bool batching = true;  // false: batch 1 only
  bool spatial = true;   // false: concurrency 1 only
  // The papers plan for smooth streams (video frames). With z > 0 each module is planned for
  // T + z·sqrt(T·B/τ) (τ its budget, B the size of the bursts it receives: 1 from a Poisson
  // source, a parent's batch times the fan-out below it) so bursts fit: 2.33 for about 99 %.
  double burst_z = 0;
  std::vector<double> module_burst_z;  // per module, overriding burst_z (empty: burst_z for all)

  double burst_z_of(std::size_t m) const { return m < module_burst_z.size() ? module_burst_z[m] : burst_z; }
};

// "piccolo", "harpagon", "nexus", "scrooge", "inferline", "clipper", or an ablation written
// as BASE-VARIANT (Piccolo digest §3.7, Harpagon digest §4.8): 2d, dt, 1c, 2c, nb, np, nh, nhc,
// nhe, nd, 0re, 1re, tb, q0.1, q0.01, nnm, ncd, fluid, and paper (the algorithm as published,
// without what we add beyond it: see as_published). Throws QueryError listing the names.
CostPlanOptions cost_plan_preset(std::string_view system);
std::vector<std::string> cost_plan_systems();       // the six systems
std::vector<std::string> cost_plan_ablations();     // the variant suffixes
bool is_cost_plan_system(std::string_view system);  // a preset name, ablations included
// The options without what we add beyond the papers (docs/reproduction/cost.md
// "Beyond the papers"): the pairwise exchange after the split and the module scheduler's
// one-configuration plans. The digests' worked examples are of the published algorithms.
CostPlanOptions as_published(CostPlanOptions options);

struct SplitStep {
  std::size_t module = 0;
  std::size_t from = 0, to = 0;  // configuration indices
  double lc = 0;
  Duration e2e;
};

struct CostPlan {
  std::string system;
  Dispatch dispatch = Dispatch::ThroughputCost;  // the rule its latencies assume
  bool feasible = false;
  std::string reason;  // why not, when infeasible
  // The planner's space leaves a DNN module nothing to run on: the input cannot be planned by
  // this system at all (a refusal), as opposed to a plan that misses the SLO.
  bool unplannable = false;
  CostProblem problem;              // the configuration space the plan was made in (restricted by the preset)
  std::vector<ModulePlan> modules;  // per module; a fixed step's has no tiers
  std::vector<Duration> latency;    // per module: worst case (a fixed step's own latency)
  std::vector<Duration> budgets;    // per module: its latency scaled so the critical path is the SLO
  double cost = 0;
  Duration e2e_wcl;
  std::vector<SplitStep> trace;  // the splitter's accepted moves
  int reassignments = 0;

  int machines() const;
  double dummy_rps() const;
  bool has_headroom() const;
  // Per module, the papers' worst case at the workload's rate (wcl_at_rate; a CPU step's own
  // latency), and the critical path of those. Equal to `latency` and `e2e_wcl` for a plan made
  // for the stated rates; above them, possibly above the SLO, for one with burst headroom, whose
  // SLO then rests on the simulator check (verified_planning.h), not on the formula.
  std::vector<Duration> latency_at_rates() const;
  Duration e2e_wcl_at_rates() const;
};

CostPlan plan_cost(const CostProblem& problem, const CostPlanOptions& options);

// Fills a plan's per-module latency, end-to-end WCL, cost and budgets from its module plans, and
// marks it feasible when the critical path fits the SLO (else says why).
void complete_plan(CostPlan& plan, const CostProblem& problem, const CostDag& dag);

}  // namespace servescope::engine
