// The cost planner's options, and the systems as presets of them: Piccolo (seed 001 §3.5),
// Harpagon (seed 004 §2.1), the baselines they compare against and every ablation, so a
// difference between two systems is one changed field.
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
// nhe, nd, 0re, 1re, tb, q0.1, q0.01, nnm, ncd, fluid, alg1 (Alg. 1 instead of the exact module
// scheduler), and paper (the algorithm as published,
// without what we add beyond it: see as_published). Throws QueryError listing the names.
CostPlanOptions cost_plan_preset(std::string_view system);
std::vector<std::string> cost_plan_systems();       // the six systems
std::vector<std::string> cost_plan_ablations();     // the variant suffixes
bool is_cost_plan_system(std::string_view system);  // a preset name, ablations included
// The options without what we add beyond the papers (docs/reproduction/cost.md
// "Beyond the papers"): the pairwise exchange after the split and the module scheduler's
// one-configuration plans. The digests' worked examples are of the published algorithms.
CostPlanOptions as_published(CostPlanOptions options);

}  // namespace servescope::engine
