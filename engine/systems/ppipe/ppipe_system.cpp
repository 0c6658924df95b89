#include "engine/systems/ppipe/ppipe_system.h"

#include <algorithm>
#include <utility>

#include "engine/ppipe/network_layout.h"
#include "engine/ppipe/pipeline_deployment.h"
#include "engine/ppipe/pipeline_plan_json.h"
#include "engine/ppipe/reactive_pool_scheduler.h"
#include "engine/ppipe/reservation_scheduler.h"
#include "engine/ppipe/scenario_planning.h"
#include "engine/serving/plan_request.h"
#include "engine/serving/prepared_serving.h"
#include "engine/systems/ppipe/ppipe_options.h"
#include "model/core/error.h"

namespace servescope::engine {
namespace {

PlanSummary summary_of(const PipelinePlan& plan) {
  PlanSummary s;
  s.system = plan.system;
  s.family = PlannerFamily::Pipeline;
  s.throughput_rps = plan.total_throughput_rps();
  s.feasible = s.throughput_rps > 0;
  for (const auto& p : plan.pipelines)
    for (const auto& d : p.partitions)
      s.gpus += d.gpus;
  if (!s.feasible) s.note = "no pipeline meets its SLO";
  return s;
}

class PpipeFamily final : public ServingFamily {
 public:
  std::vector<DataPlaneTraits> data_planes() const override {
    std::vector<DataPlaneTraits> out;
    const std::pair<const char*, const char*> planes[] = {
        {"reservation",
         "PPipe's reservation-based batching (seed 000 §5.2, Algorithm 1): for the head request it picks the "
         "pooled pipeline that waits least, the largest batch that meets the head's deadline, and reserves every "
         "vGPU and NIC on the path before dispatching, so each stage starts when its reservation begins."},
        {"reactive",
         "The reactive baseline (seed 000 §7.4): every pool batches on its own and forwards outputs first come, "
         "first served, with no reservations, so transfers queue on busy links."}};
    for (const auto& [name, decides] : planes) {
      DataPlaneTraits t;
      t.name = name;
      t.decides = decides;
      t.runs = PlanKind::Pipeline;
      t.places_own_gpus = true;
      out.push_back(std::move(t));
    }
    return out;
  }

  void place(const Scenario& scenario, const SimulationSpec& spec, PreparedServing& prepared) const override {
    const auto& plan = spec.options<PipelineRunOptions>().plan;
    if (!plan)
      throw QueryError("the " + spec.system +
                       " data plane runs a pooled-pipeline plan; give one (servescope-cli plan)");
    auto& setup = prepared.setup;
    auto& result = prepared.result;
    const auto names = model_names(setup);
    std::vector<PhysicalGpu> physical;
    for (const auto& g : setup.gpus)
      physical.push_back(PhysicalGpu{g.name, g.gpu_type, g.server});
    const auto& options = spec.options<PipelineRunOptions>();
    // The artifact's links never join two vGPUs of one server, so a free local hand-off there
    // would be booked free by the plane and charged by the links.
    if (options.network == NetworkLayout::Artifact && options.reservation.probe.local_handoff_free)
      throw QueryError(
          "--local-handoff-free and --network artifact do not go together: the artifact's links "
          "charge every hand-off");
    auto placed = deploy_pipeline_plan(*plan, names, physical, setup.servers, scenario.profiles, options.placement);
    apply_network_layout(placed, options.network);
    if (!placed.nics.empty()) prepared.network = placed.network_links();
    auto deployment = std::make_shared<const PipelineDeployment>(std::move(placed));
    setup.gpus = deployment->slots;
    result.gpu_physical = deployment->slot_physical;
    result.plan_system = plan->system;
    // Load factor 1 is what the plan promises for the models the workload sends.
    for (const auto& pm : plan->models)
      if (std::ranges::find(names, pm.name) != names.end()) result.nominal_capacity_rps += pm.throughput_rps;
    prepared.pipeline_deployment = deployment.get();
    prepared.state = std::move(deployment);
  }

  bool serves(const SimulationSpec& spec, const WorkloadTarget& target) const override {
    const auto& plan = spec.options<PipelineRunOptions>().plan;
    return !plan || std::ranges::find(plan->models, target.name, &PlannedModel::name) != plan->models.end();
  }

  void build(const Scenario& scenario, const SimulationSpec& spec, PreparedServing& prepared) const override {
    const auto& deployment = *prepared.pipeline_deployment;
    std::vector<Duration> slos;
    for (const auto& m : prepared.setup.models)
      slos.push_back(m.slo);
    const auto& options = spec.options<PipelineRunOptions>();
    if (spec.system == "reservation") {
      auto plane = std::make_unique<ReservationScheduler>(deployment, slos, options.reservation);
      const auto* reservation = plane.get();
      prepared.collect = [reservation](SimulationResult& result) {
        result.probes = reservation->stats().probes;
        result.dispatches = reservation->stats().dispatches;
      };
      prepared.plane = std::move(plane);
    } else {
      prepared.plane = std::make_unique<ReactivePoolScheduler>(deployment, options.reactive);
    }
    describe_unsplit(prepared);
    prepared.times = deployment.execution_times(scenario.profiles);
  }

  std::vector<std::string> planners() const override { return pipeline_planners(); }
  PlannerFamily planner_family() const override { return PlannerFamily::Pipeline; }

  ScenarioPlanResult plan(const Scenario& scenario, const ScenarioPlanRequest& request) const override {
    const auto input = planning_input(scenario, request.workloads);
    if (request.on_start)
      request.on_start(PlanningStart{PlannerFamily::Pipeline, input.models.size(), scenario.cluster.total_gpus(), {}});
    auto plan = plan_pipelines(request.system, input, request.ppipe);
    // Braced members are initialised in order: the plan is summarised before it moves.
    return ScenarioPlanResult{pipeline_plan_to_json(plan, scenario.name), summary_of(plan), std::move(plan)};
  }

  PlanKind set_plan(SimulationSpec& spec, const nlohmann::json& plan, const std::string& file) const override {
    spec.edit_options<PipelineRunOptions>().plan =
        std::make_shared<const PipelinePlan>(pipeline_plan_from_json(plan, file));
    return PlanKind::Pipeline;
  }

  std::string_view title() const override { return "pooled pipelines"; }
  OptionSchema<SimulationSpec> simulation_options() const override { return pipeline_simulation_options(); }
  OptionSchema<ScenarioPlanRequest> planner_options() const override { return pipeline_planner_options(); }

  std::string_view plan_kind() const override { return "pipeline-plan"; }
  PlanSummary summarize(const nlohmann::json& plan, const std::string& file) const override {
    return summary_of(pipeline_plan_from_json(plan, file));
  }
};

}  // namespace

std::unique_ptr<ServingFamily> ppipe_family() {
  return std::make_unique<PpipeFamily>();
}

}  // namespace servescope::engine
