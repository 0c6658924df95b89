#include "engine/systems/glet/glet_system.h"

#include <algorithm>
#include <string>

#include "engine/glet/glet_data_plane.h"
#include "engine/glet/glet_deployment.h"
#include "engine/glet/glet_latency.h"
#include "engine/glet/glet_plan_json.h"
#include "engine/glet/glet_scenario.h"
#include "engine/glet/glet_serving.h"
#include "engine/glet/rate_headroom.h"
#include "engine/serving/plan_request.h"
#include "engine/serving/prepared_serving.h"
#include "engine/systems/glet/glet_options.h"
#include "model/core/error.h"

namespace servescope::engine {
namespace {

PlanSummary summary_of(const GletPlan& plan) {
  PlanSummary s;
  s.system = plan.system;
  s.family = PlannerFamily::Glet;
  s.feasible = plan.feasible;
  s.gpus = plan.layout.gpus_used();
  for (const auto& m : plan.models)
    s.throughput_rps += m.assigned_rps;
  s.note = plan.message;
  return s;
}

// Glets on one GPU slow each other down while both run: the linear interference model of the
// scenario's profiles is the simulated truth, whatever the plan assumed. `glets_now` gives the
// glets in force when a batch starts (with rescheduling, a batch started before a switch ran at
// the old split). Empty when the profiles have no interference model for the GPU type.
template <typename GletsNow>
std::function<double(const Simulator&, std::uint32_t, const Batch&)> interference_slowdown(
    const Scenario& scenario, const std::string& gpu, const std::vector<ScheduledModel>& models, GletsNow glets_now) {
  const InterferenceModel* interference = nullptr;
  for (const auto& i : scenario.profiles.interference)
    if (i.gpu == gpu) interference = &i;
  if (!interference) return {};
  std::vector<const UtilisationProfile*> utilisation;
  for (const auto& m : models) {
    utilisation.push_back(nullptr);
    for (const auto& u : scenario.profiles.utilisation)
      if (u.model == m.name && u.gpu == gpu) utilisation.back() = &u;
  }
  return [interference, utilisation = std::move(utilisation), glets_now](const Simulator& sim, std::uint32_t gpu_slot,
                                                                         const Batch& batch) {
    const std::vector<GletSlot>& glets = glets_now();
    const auto& slot = glets[gpu_slot];
    if (!slot.neighbour) return 1.0;
    const Batch* other = sim.running(*slot.neighbour);
    if (!other) return 1.0;
    return interference_factor(*interference, utilisation[batch.model], static_cast<int>(batch.requests.size()),
                               slot.size_percent, utilisation[other->model], static_cast<int>(other->requests.size()),
                               glets[*slot.neighbour].size_percent);
  };
}

// The glet data plane: a plan's glets, placed once.
void place_plan(const SimulationSpec& spec, PreparedServing& prepared,
                const std::vector<const ModelProfile*>& profiles) {
  const auto& plan = spec.options<GletRunOptions>().plan;
  if (!plan) throw QueryError("the glet data plane runs a gpu-let plan; give one (servescope-cli plan --system glet)");
  auto& setup = prepared.setup;
  auto& result = prepared.result;
  const auto names = model_names(setup);
  auto deployment = std::make_shared<const GletDeployment>(deploy_glet_plan(*plan, names, setup.gpus, profiles));
  setup.gpus = deployment->slots;
  result.gpu_physical = deployment->slot_physical;
  for (const auto& g : deployment->glets)
    result.gpu_duty_cycle.push_back(g.duty_cycle);
  result.plan_system = plan->system;
  for (const auto& pm : plan->models)
    if (std::ranges::find(names, pm.name) != names.end()) result.nominal_capacity_rps += pm.assigned_rps;
  prepared.state = std::move(deployment);
}

void build_plan(const Scenario& scenario, const SimulationSpec& spec, PreparedServing& prepared,
                const std::vector<const ModelProfile*>& profiles) {
  const auto& deployment = *static_cast<const GletDeployment*>(prepared.state.get());
  std::vector<Duration> slos;
  for (const auto& m : prepared.setup.models)
    slos.push_back(m.slo);
  const auto& options = spec.options<GletRunOptions>();
  prepared.plane = std::make_unique<GletDataPlane>(deployment, slos, options.data_plane);
  prepared.times = deployment.execution_times(profiles);
  prepared.slowdown =
      interference_slowdown(scenario, options.plan->gpu, prepared.setup.models,
                            [&deployment]() -> const std::vector<GletSlot>& { return deployment.glets; });
  describe_unsplit(prepared);
}

// glet-serving: two slots per GPU of the type, its first and second glet, for the whole run; the
// rescheduler decides what they hold every period.
void place_serving(const Scenario& scenario, const SimulationSpec& spec, PreparedServing& prepared) {
  const auto& options = spec.options<GletRunOptions>();
  auto& setup = prepared.setup;
  auto& result = prepared.result;
  auto input = std::make_shared<const GletInput>(glet_input(scenario, spec.workloads, options.gpu));
  std::vector<GpuSlot> slots;
  for (const auto& g : setup.gpus)
    if (g.gpu_type == input->latency.gpu)
      for (int k = 0; k < 2; ++k) {
        slots.push_back(GpuSlot{static_cast<std::uint32_t>(slots.size()), g.name + "#" + std::to_string(k), g.gpu_type,
                                GpuShare::whole(), g.server});
        result.gpu_physical.push_back(g.index);
      }
  setup.gpus = std::move(slots);
  result.plan_system = "glet, rescheduled every " + std::to_string(options.serving.period.to_s()) + " s";
  result.nominal_capacity_rps = setup.workload_rate_rps;
  prepared.state = std::move(input);
}

void build_serving(const Scenario& scenario, const SimulationSpec& spec, PreparedServing& prepared,
                   const std::vector<const ModelProfile*>& profiles) {
  const auto& input = *static_cast<const GletInput*>(prepared.state.get());
  const auto& setup = prepared.setup;
  const double scale = prepared.result.offered_rate_rps / setup.workload_rate_rps;
  // The rescheduler plans the real models (an application's modules among them, at its rate);
  // application requests themselves are the AppFanout's.
  std::vector<GletModel> models;
  std::vector<double> initial;
  std::vector<int> planned_as;  // per data-plane model: its index among `models`, or −1
  std::vector<Duration> slos;
  for (const auto& m : setup.models) {
    slos.push_back(m.slo);
    const auto g = std::ranges::find_if(input.models, [&](const GletModel& x) { return x.profile->name == m.name; });
    planned_as.push_back(g == input.models.end() ? -1 : static_cast<int>(models.size()));
    if (g == input.models.end()) continue;
    models.push_back(*g);
    initial.push_back(g->rate_rps * scale);
  }
  const auto& lo = input.latency;
  const auto& options = spec.options<GletRunOptions>();
  // Every size a schedule may choose needs a timing row: one class per size.
  std::vector<std::vector<BatchLatency>> latency(profiles.size());
  std::vector<GpuShare> shares;
  for (const int size : lo.sizes)
    shares.push_back(GpuShare::percent(size));
  for (std::size_t m = 0; m < profiles.size(); ++m)
    for (const auto& share : shares)
      latency[m].push_back(profiles[m] ? BatchLatency(*profiles[m], lo.gpu, share) : BatchLatency());
  prepared.times = ExecutionTimes(std::move(latency), std::vector<std::uint32_t>(setup.gpus.size(), 0));
  prepared.times->set_class_shares(shares);
  auto plane = std::make_unique<GletServing>(GletRescheduler(std::move(models), lo, options.planner, input.gpu_limit),
                                             model_names(setup), setup.gpus, prepared.result.gpu_physical, profiles,
                                             slos, std::move(planned_as), std::move(initial), options.serving);
  const auto* serving = plane.get();
  prepared.slowdown =
      interference_slowdown(scenario, lo.gpu, setup.models,
                            [serving]() -> const std::vector<GletSlot>& { return serving->deployment().glets; });
  prepared.collect = [serving](SimulationResult& result) { result.reorganisations = serving->reorganisations(); };
  prepared.plane = std::move(plane);
  describe_unsplit(prepared);
}

class GletFamily final : public ServingFamily {
 public:
  std::vector<DataPlaneTraits> data_planes() const override {
    DataPlaneTraits glet;
    glet.name = "glet";
    glet.runs = PlanKind::Glet;
    glet.places_own_gpus = true;
    glet.serves_applications = true;
    glet.decides =
        "gpu-let's runtime (seed 003 §4.6, §5.2): each glet gathers up to its planned batch of a model for at most "
        "one duty cycle (sooner when the oldest request would be late), with at most one batch per model in "
        "flight; requests that can no longer make their deadline are dropped.";
    DataPlaneTraits serving = glet;
    serving.name = "glet-serving";
    serving.runs = PlanKind::None;
    serving.not_live = "glet-serving re-splits GPUs while it runs, which live workers cannot do yet; run a glet plan";
    return {glet, serving};
  }

  void place(const Scenario& scenario, const SimulationSpec& spec, PreparedServing& prepared) const override {
    if (spec.system == "glet-serving")
      place_serving(scenario, spec, prepared);
    else
      place_plan(spec, prepared, model_profiles(scenario, prepared.setup));
  }

  void build(const Scenario& scenario, const SimulationSpec& spec, PreparedServing& prepared) const override {
    const auto profiles = model_profiles(scenario, prepared.setup);
    if (spec.system == "glet-serving")
      build_serving(scenario, spec, prepared, profiles);
    else
      build_plan(scenario, spec, prepared, profiles);
  }

  std::vector<std::string> planners() const override { return glet_systems(); }
  PlannerFamily planner_family() const override { return PlannerFamily::Glet; }

  ScenarioPlanResult plan(const Scenario& scenario, const ScenarioPlanRequest& request) const override {
    auto in = glet_input(scenario, request.workloads, request.glet_gpu);
    if (request.glet_headroom) in.models = with_headroom(std::move(in.models));
    if (!request.glet_sizes.empty()) in.latency.sizes = request.glet_sizes;
    in.latency.latency_safety = request.glet_safety;
    in.latency.knee = request.glet_knee;
    const int limit = request.glet_gpu_limit > 0 ? std::min(request.glet_gpu_limit, in.gpu_limit) : in.gpu_limit;
    if (request.on_start) request.on_start(PlanningStart{PlannerFamily::Glet, in.models.size(), limit, in.latency.gpu});
    auto plan =
        plan_glet_system(request.system, in.models, in.latency, request.glet, request.glet_previous_gpus, limit);
    // Braced members are initialised in order: the plan is summarised before it moves.
    return ScenarioPlanResult{glet_plan_to_json(plan, scenario.name), summary_of(plan), std::move(plan)};
  }

  PlanKind set_plan(SimulationSpec& spec, const nlohmann::json& plan, const std::string& file) const override {
    spec.edit_options<GletRunOptions>().plan = std::make_shared<const GletPlan>(glet_plan_from_json(plan, file));
    return PlanKind::Glet;
  }

  std::string_view title() const override { return "gpu-let"; }
  OptionSchema<SimulationSpec> simulation_options() const override { return glet_simulation_options(); }
  OptionSchema<ScenarioPlanRequest> planner_options() const override { return glet_planner_options(); }

  std::string_view plan_kind() const override { return "glet-plan"; }
  PlanSummary summarize(const nlohmann::json& plan, const std::string& file) const override {
    return summary_of(glet_plan_from_json(plan, file));
  }
};

}  // namespace

std::unique_ptr<ServingFamily> glet_family() {
  return std::make_unique<GletFamily>();
}

}  // namespace servescope::engine
