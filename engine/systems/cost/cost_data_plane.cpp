#include "engine/systems/cost/cost_data_plane.h"

#include <algorithm>
#include <map>
#include <tuple>

#include "engine/cost/cost_dispatcher.h"
#include "engine/cost/cost_serving.h"
#include "engine/cost/runnable_cost_plan.h"
#include "engine/systems/cost/cost_options.h"
#include "model/core/error.h"

namespace servescope::engine {
namespace {

// What the plane refers to for its lifetime.
struct CostState {
  CostPlan plan;
  CostServing layout;
};

}  // namespace

void place_cost_plan(const Scenario& scenario, const SimulationSpec& spec, PreparedServing& prepared) {
  const auto& record = spec.options<CostRunOptions>().plan;
  if (!record)
    throw QueryError("the cost data plane runs a cost plan; give one (servescope-cli plan --system harpagon)");
  auto state = std::make_shared<CostState>();
  state->plan = runnable_cost_plan(*record, scenario);
  state->layout = cost_serving(state->plan);
  const auto& plan = state->plan;
  auto& setup = prepared.setup;
  auto& result = prepared.result;

  // The plan serves one application: every stream must be its requests.
  const std::string app_model = "app:" + plan.problem.name;
  for (const auto& s : setup.streams)
    if (setup.models[s.model].name != app_model)
      throw QueryError("the cost plan serves application '" + plan.problem.name + "'; the workloads also send to '" +
                       setup.models[s.model].name + "' (choose the application's workload)");
  if (setup.streams.empty()) throw QueryError("no selected workload targets application '" + plan.problem.name + "'");
  // Models: the application, then one per module (a model two modules run is two models here,
  // as the plan gives each module its own machines).
  std::vector<ScheduledModel> models{ScheduledModel{app_model, BatchLatency(), plan.problem.slo}};
  for (const auto& m : plan.problem.modules) {
    const bool shared = std::ranges::count(plan.problem.modules, m.model, &CostModule::model) > 1;
    const auto name = m.is_fixed() ? "cpu:" + m.id : shared ? m.model + " (" + m.id + ")" : m.model;
    models.push_back(ScheduledModel{name, BatchLatency(), plan.problem.slo});
  }
  setup.models = std::move(models);
  for (auto& s : setup.streams)
    s.model = 0;
  setup.apps = {state->layout.graph};

  // Slots: one per machine and concurrency slot, in the dispatcher's order.
  std::vector<GpuSlot> slots;
  result.gpu_physical.clear();
  std::map<std::tuple<std::size_t, std::size_t, std::size_t>, std::uint32_t> machine;
  for (const auto& slot : cost_slots(plan)) {
    const auto& mod = plan.problem.modules[slot.module];
    const auto& config = mod.configs[slot.config];
    const auto key = std::tuple(slot.module, slot.tier, slot.machine);
    const auto [it, fresh] = machine.emplace(key, static_cast<std::uint32_t>(machine.size()));
    const auto index = static_cast<std::uint32_t>(slots.size());
    const auto within = static_cast<int>(std::ranges::count(result.gpu_physical, it->second));
    slots.push_back(GpuSlot{index,
                            mod.id + "/" + config.hw + "-t" + std::to_string(slot.tier) + "m" +
                                std::to_string(slot.machine) + "#" + std::to_string(within),
                            config.hw, GpuShare::mps(config.concurrency), 0});
    result.gpu_physical.push_back(it->second);
  }
  setup.gpus = std::move(slots);
  result.nominal_capacity_rps = state->layout.app_rate_rps;
  result.plan_system = plan.system;
  prepared.state = std::move(state);
}

void build_cost_plane(PreparedServing& prepared) {
  const auto& state = *static_cast<const CostState*>(prepared.state.get());
  prepared.plane = std::make_unique<CostDispatcher>(state.plan, state.layout.module_model);
  prepared.times =
      ExecutionTimes::with_kernels(state.layout.latency, std::vector<std::uint32_t>(prepared.setup.gpus.size(), 0));
  describe_unsplit(prepared);
}

}  // namespace servescope::engine
