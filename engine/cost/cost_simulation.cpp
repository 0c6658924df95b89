#include "engine/cost/cost_simulation.h"

#include <algorithm>

#include "engine/cost/cost_serving.h"
#include "engine/dataplane/app_fanout.h"
#include "engine/sim/simulator.h"
#include "model/core/error.h"

namespace servescope::engine {

CostSimulationResult simulate_cost_plan(const CostPlan& plan, const CostSimulationOptions& options) {
  if (!(options.load > 0)) throw QueryError("the load multiplier must be positive");
  const auto& problem = plan.problem;
  const std::size_t n = problem.modules.size();
  auto layout = cost_serving(plan);
  auto dispatcher = std::make_unique<CostDispatcher>(plan, layout.module_model);
  CostDispatcher* cost = dispatcher.get();
  const auto slots = cost->slots();
  auto times = ExecutionTimes::with_kernels(std::move(layout.latency), std::vector<std::uint32_t>(slots.size(), 0));
  AppFanout plane(std::move(dispatcher), {layout.graph});

  CostSimulationResult result;
  result.app_rate_rps = layout.app_rate_rps * options.load;
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
    list.reserve(options.arrival_list.size());
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
