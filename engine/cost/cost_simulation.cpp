#include "engine/cost/cost_simulation.h"

#include <algorithm>

#include "engine/dataplane/app_fanout.h"
#include "engine/sim/simulator.h"
#include "model/core/error.h"

namespace servescope::engine {

CostSimulationResult simulate_cost_plan(const CostPlan& plan, const CostSimulationOptions& options) {
  if (!plan.feasible) throw QueryError("cannot simulate an infeasible plan: " + plan.reason);
  if (!(options.load > 0)) throw QueryError("the load multiplier must be positive");
  const auto& problem = plan.problem;
  const CostDag dag(problem);
  const std::size_t n = problem.modules.size();
  // Application requests arrive at the first source's rate; every module gets its own rate as
  // copies per application request. Model 0 is the application, module m is model m + 1.
  double app_rate = 0;
  for (const auto m : dag.order())
    if (dag.preds(m).empty() && !problem.modules[m].is_fixed()) {
      app_rate = problem.modules[m].rate_rps;
      break;
    }
  if (app_rate <= 0)
    for (const auto& m : problem.modules)
      app_rate = std::max(app_rate, m.rate_rps);
  if (app_rate <= 0) throw QueryError("the application has no module with a rate");
  AppGraph graph;
  graph.request_model = 0;
  std::vector<std::uint32_t> module_model(n);
  for (std::size_t m = 0; m < n; ++m) {
    AppGraph::Node node;
    const auto& mod = problem.modules[m];
    module_model[m] = static_cast<std::uint32_t>(m + 1);
    if (mod.is_fixed()) {
      node.cpu = mod.fixed_latency;
    } else {
      // A DNN module without machines would make every request wait for ever, or, read as a
      // free step, pass untouched: the check refuses the plan instead.
      if (m >= plan.modules.size() || plan.modules[m].machines() == 0)
        throw QueryError("module '" + mod.id + "' runs model " + mod.model + " on no machine: the plan cannot run");
      node.model = module_model[m];
      node.copies = mod.rate_rps / app_rate;
    }
    node.next = dag.succs(m);
    node.inputs = static_cast<int>(dag.preds(m).size());
    node.sink = dag.succs(m).empty();
    graph.nodes.push_back(std::move(node));
  }
  auto dispatcher = std::make_unique<CostDispatcher>(plan, module_model);
  CostDispatcher* cost = dispatcher.get();
  const auto slots = cost->slots();
  // A batch takes the duration of the configuration it runs as (the batch's kernel), whatever
  // its fill: the profiled time of a full batch.
  std::vector<std::vector<std::vector<BatchLatency>>> latency(n + 1, {{BatchLatency()}});
  for (std::size_t m = 0; m < n; ++m) {
    latency[m + 1].clear();
    for (const auto& c : problem.modules[m].configs)
      latency[m + 1].push_back({BatchLatency::linear(Duration(), c.duration, c.batch)});
    if (latency[m + 1].empty()) latency[m + 1].push_back({BatchLatency()});
  }
  auto times = ExecutionTimes::with_kernels(std::move(latency), std::vector<std::uint32_t>(slots.size(), 0));
  AppFanout plane(std::move(dispatcher), {graph});

  CostSimulationResult result;
  result.app_rate_rps = app_rate * options.load;
  ArrivalStream stream;
  stream.model = 0;
  stream.slo = problem.slo;
  stream.rate_rps = result.app_rate_rps;
  stream.process = options.arrivals;
  std::unique_ptr<ArrivalSource> arrivals;
  if (options.arrival_list.empty()) {
    arrivals = std::make_unique<WorkloadArrivals>(std::vector<ArrivalStream>{stream}, options.duration, options.seed);
  } else {
    std::vector<Arrival> list;
    for (const auto t : options.arrival_list)
      list.push_back({t, 0, 0, problem.slo});
    arrivals = std::make_unique<ListArrivals>(std::move(list));
  }
  const Time window_start = std::min(options.warmup, options.duration);
  MetricsCollector metrics(
      n + 1, slots.size(), window_start, options.duration,
      std::max(Duration::milliseconds(1), Duration::nanoseconds(options.duration.count_ns() / 200)));
  Simulator sim(slots.size(), std::move(times), *arrivals, plane, metrics);
  sim.run(options.duration + options.drain);

  result.app = metrics.models()[0];
  result.modules = cost->stats();
  result.planned_cost = plan.cost;
  result.slots = slots.size();
  result.slot_list = slots;
  result.slot_busy = metrics.gpu_busy_fraction();
  for (std::size_t g = 0; g < slots.size(); ++g)
    result.measured_cost += slots[g].price_share * result.slot_busy[g];
  return result;
}

}  // namespace servescope::engine
