#include "engine/cost/cost_scenario_planning.h"

#include <algorithm>
#include <sstream>

#include "engine/cost/brute_force.h"
#include "engine/cost/cost_plan_json.h"
#include "model/core/error.h"

namespace servescope::engine {
namespace {

// The checks and the run are measured alike, so their attainments compare: the warm-up is a
// tenth of the run, at most 5 s.
CostSimulationOptions simulation_options(double seconds, std::uint64_t seed, const ArrivalProcess& arrivals) {
  CostSimulationOptions o;
  o.duration = Duration::from_s(seconds);
  o.warmup = Duration::from_s(std::min(5.0, seconds / 10));
  o.seed = seed;
  o.arrivals = arrivals;
  return o;
}

}  // namespace

CostScenarioOutcome plan_cost_scenario(const Scenario& scenario, const CostScenarioRequest& request) {
  const bool brute = request.system == "bruteforce";
  if (brute && request.burst_z > 0) throw QueryError("the brute force plans for the stated rates only (no headroom)");
  if (!brute && request.verify && !(request.verify_s > 0))
    throw QueryError("a check in the simulator needs a positive duration");
  CostScenarioOutcome out;
  out.problem = cost_problem_from_scenario(scenario, request.scenario);
  const auto arrivals = application_arrivals(scenario, request.scenario);
  std::ostringstream report;
  if (brute) {
    out.plan = plan_brute_force(out.problem);
  } else {
    auto preset = cost_plan_preset(request.system);
    if (!request.verify) {
      preset.burst_z = request.burst_z;
      out.plan = plan_cost(out.problem, preset);
    } else {
      VerifiedPlanOptions vo;
      if (request.burst_z > 0) {  // asked for the count formula's headroom by name
        vo.headroom = HeadroomModel::Count;
        vo.start_z = request.burst_z;
      }
      vo.simulation = simulation_options(request.verify_s, request.seed, arrivals);
      out.verified = plan_cost_verified(out.problem, preset, vo);
      out.plan = out.verified->plan;
    }
  }
  // A space that leaves a module nothing is a refusal of the input (exit 2 in the CLI), not a
  // plan that misses its SLO.
  if (out.plan.unplannable) throw QueryError(out.plan.system + " cannot plan this application: " + out.plan.reason);
  out.json = cost_plan_to_json(out.plan, scenario.name);
  if (out.verified) {
    const auto& v = *out.verified;
    const int runs = std::max(1, VerifiedPlanOptions{}.runs);
    out.json["verification"] = {{"duration_s", request.verify_s}, {"seed", request.seed}, {"runs", runs},
                                {"arrival", describe(arrivals)},  {"rounds", v.rounds},   {"requests", v.requests},
                                {"slo_attainment", v.attainment}, {"met", v.met}};
    report << "checked in the simulator (" << describe(arrivals) << ", " << runs << " runs of " << request.verify_s
           << " s, seeds " << request.seed << "–" << request.seed + static_cast<std::uint64_t>(runs - 1) << ", "
           << v.rounds << " round" << (v.rounds == 1 ? "" : "s") << "): SLO attainment " << 100 * v.attainment
           << " % in the worse run, " << v.requests << " requests" << (v.met ? "" : ", short of 99 %") << "\n";
  }
  if (out.plan.feasible && request.simulate_s > 0) {
    const auto& r = out.simulated.emplace(
        simulate_cost_plan(out.plan, simulation_options(request.simulate_s, request.seed, arrivals)));
    out.json["simulation"] = {{"duration_s", request.simulate_s},     {"seed", request.seed},
                              {"arrival", describe(arrivals)},        {"requests", r.app.arrivals},
                              {"slo_attainment", r.app.attainment()}, {"dropped", r.app.dropped},
                              {"measured_cost", r.measured_cost},     {"planned_cost", r.planned_cost}};
    report << "simulated " << request.simulate_s << " s (" << describe(arrivals) << ", seed " << request.seed
           << "): SLO attainment " << 100 * r.app.attainment() << " % of " << r.app.arrivals
           << " requests, measured cost " << r.measured_cost << " (planned " << r.planned_cost << ")\n";
  }
  out.report = report.str();
  return out;
}

}  // namespace servescope::engine
