// A cost plan as its file holds it (docs/formats.md, "Cost plans"), read back strictly: per
// module its tiers, budget and worst-case latency, the DAG's edges and the totals. The planner's
// CostPlan carries the whole configuration space it chose from; a file keeps only the choice,
// so a plan read from a project or a file is this record (the GUI's plan page, comparison tables).
#pragma once

#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "model/core/time.h"

namespace servescope::engine {

struct CostTierRecord {
  std::string gpu;
  int batch = 1;
  int concurrency = 1;
  Duration duration;    // one batch at that concurrency (0: not in the file)
  double price = 0;     // per machine (0: not in the file)
  double machines = 0;  // fractional for the partial tier
  bool partial = false;
  double rate_rps = 0;
  Duration wcl;
};

struct CostModuleRecord {
  std::string id;
  bool cpu = false;  // a CPU step: no tiers, its own latency
  Duration budget, wcl;
  Duration wcl_at_rate;  // at the workload's rate (= wcl for a plan without burst headroom)
  std::string model;
  double rate_rps = 0, dummy_rps = 0, headroom_rps = 0, cost = 0;
  std::vector<CostTierRecord> tiers;
};

struct CostPlanRecord {
  std::string system, application;
  std::string dispatch;  // "TC", "RR", "DT" (empty: not in the file)
  bool feasible = false;
  std::string reason;  // why not, when infeasible
  Duration slo;
  double total_cost = 0;
  int machines = 0;
  Duration e2e_wcl, e2e_wcl_at_rate;
  std::vector<CostModuleRecord> modules;
  std::vector<std::pair<std::string, std::string>> edges;  // module ids
  std::optional<double> verified_attainment;               // the simulator check's, when run
};

// Throws InputError naming `file` and the JSON path. Members written by later versions of the
// writer (the latency at the workload's rate, headroom) default to what older plans meant.
CostPlanRecord cost_plan_record_from_json(const nlohmann::json& plan, const std::string& file);

}  // namespace servescope::engine
