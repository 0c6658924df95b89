// What "plan this scenario with system X" asks and answers, for every planning family alike
// (heaptrack's lesson, docs gui-anchors §0: one Qt-free entry point behind the CLI and the GUI):
// pooled pipelines (PPipe, NP, DART-r), gpu-let layouts (glet and its baselines) and
// cost-minimal configurations (Piccolo, Harpagon, their baselines, brute force). The result is
// the plan's JSON, the form projects keep plans in, plus the few figures a comparison table shows.
#pragma once

#include <cstddef>
#include <functional>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <variant>
#include <vector>

#include "engine/cost/cost_scenario_planning.h"
#include "engine/glet/glet_baselines.h"
#include "engine/ppipe/ppipe_planner.h"
#include "engine/serving/serving_system.h"
#include "model/scenario/latency_quantile.h"

namespace servescope::engine {

// What is about to be planned, once the scenario has given the planner its input.
struct PlanningStart {
  PlannerFamily family = PlannerFamily::Pipeline;
  std::size_t models = 0;  // pipelines, glet: the models planned
  int gpus = 0;            // pipelines: the cluster's GPUs; glet: the most it may scale to
  std::string gpu;         // glet: the type it splits
};

struct ScenarioPlanRequest {
  std::string system = "ppipe";
  std::vector<std::string> workloads;  // empty: all
  PpipeOptions ppipe;
  GletPlannerOptions glet;
  std::string glet_gpu;         // the GPU type to split on a mixed cluster
  std::vector<int> glet_sizes;  // partition sizes in percent; empty: the paper's 20–100 %
  double glet_safety = GletLatencyOptions{}.latency_safety;
  KneeRule glet_knee = GletLatencyOptions{}.knee;
  int glet_previous_gpus = 1;  // GPUs the last period used: scaling starts here
  int glet_gpu_limit = 0;      // most GPUs to scale to; 0: every GPU of the split type
  bool glet_headroom = false;  // plan for the prototype's headroom over each rate (rate_headroom.h)
  CostScenarioRequest cost;    // its system is taken from `system`
  // Plan against this quantile of each batch's measured latency where a profile keeps
  // distributions (model/scenario/latency_quantile.h); 0.5 plans on the medians.
  double latency_quantile = kDefaultLatencyQuantile;
  // Called before the planner runs, which can take long (a command line shows it as progress).
  std::function<void(const PlanningStart&)> on_start;
};

struct PlanSummary {
  std::string system;
  PlannerFamily family = PlannerFamily::Pipeline;
  bool feasible = false;
  double throughput_rps = 0;  // pipelines: total capacity planned; glet: rate placed; cost: rate served
  double cost = 0;            // cost plans: occupancy cost; else 0
  int gpus = 0;               // GPUs (pipelines, glet) or machines (cost) the plan uses
  std::string note;           // why infeasible, or what was checked
};

struct ScenarioPlanResult {
  nlohmann::json plan;  // pipeline-plan, glet-plan or cost-plan
  PlanSummary summary;
  // The plan as its planner made it, for reports that show more than the JSON holds (a cost
  // plan's problem, the checks' report).
  std::variant<PipelinePlan, GletPlan, CostScenarioOutcome> planned;
  // The quantile of measured latencies it was planned at; none where no profile keeps them.
  std::optional<double> latency_quantile = std::nullopt;
};

}  // namespace servescope::engine
