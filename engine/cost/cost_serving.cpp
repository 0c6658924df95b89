#include "engine/cost/cost_serving.h"

#include <algorithm>

#include "model/core/error.h"

namespace servescope::engine {

CostServing cost_serving(const CostPlan& plan) {
  if (!plan.feasible) throw QueryError("cannot simulate an infeasible plan: " + plan.reason);
  const auto& problem = plan.problem;
  const CostDag dag(problem);
  const std::size_t n = problem.modules.size();
  CostServing out;
  // Application requests arrive at the first source's rate; every module gets its own rate as
  // copies per application request.
  for (const auto m : dag.order())
    if (dag.preds(m).empty() && !problem.modules[m].is_fixed()) {
      out.app_rate_rps = problem.modules[m].rate_rps;
      break;
    }
  if (out.app_rate_rps <= 0)
    for (const auto& m : problem.modules)
      out.app_rate_rps = std::max(out.app_rate_rps, m.rate_rps);
  if (out.app_rate_rps <= 0) throw QueryError("the application has no module with a rate");
  out.graph.request_model = 0;
  out.module_model.resize(n);
  for (std::size_t m = 0; m < n; ++m) {
    AppGraph::Node node;
    const auto& mod = problem.modules[m];
    out.module_model[m] = static_cast<std::uint32_t>(m + 1);
    if (mod.is_fixed()) {
      node.cpu = mod.fixed_latency;
    } else {
      // A DNN module without machines would make every request wait for ever, or, read as a
      // free step, pass untouched: the check refuses the plan instead.
      if (m >= plan.modules.size() || plan.modules[m].machines() == 0)
        throw QueryError("module '" + mod.id + "' runs model " + mod.model + " on no machine: the plan cannot run");
      node.model = out.module_model[m];
      node.copies = mod.rate_rps / out.app_rate_rps;
    }
    node.next = dag.succs(m);
    node.inputs = static_cast<int>(dag.preds(m).size());
    node.sink = dag.succs(m).empty();
    out.graph.nodes.push_back(std::move(node));
  }
  out.latency.assign(n + 1, {{BatchLatency()}});
  for (std::size_t m = 0; m < n; ++m) {
    out.latency[m + 1].clear();
    for (const auto& c : problem.modules[m].configs)
      out.latency[m + 1].push_back({BatchLatency::linear(Duration(), c.duration, c.batch)});
    if (out.latency[m + 1].empty()) out.latency[m + 1].push_back({BatchLatency()});
  }
  return out;
}

}  // namespace servescope::engine
