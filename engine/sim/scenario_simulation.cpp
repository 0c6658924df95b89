#include "engine/sim/scenario_simulation.h"

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <set>

#include "engine/baselines/nexus_scheduler.h"
#include "engine/baselines/shepherd_scheduler.h"
#include "engine/dataplane/partitioned_data_plane.h"
#include "engine/glet/glet_scenario.h"
#include "engine/sim/cluster_gpus.h"
#include "engine/sim/request_log.h"
#include "model/core/error.h"
#include "model/core/text.h"
#include "model/io/trace_file.h"

namespace servescope::engine {

std::vector<std::string> simulation_systems() {
  return {"symphony", "eager",       "timeout",  "latest", "clockwork",   "shepherd",
          "nexus",    "reservation", "reactive", "glet",   "glet-serving"};
}

std::vector<std::string> pipeline_data_planes() {
  return {"reservation", "reactive"};
}

bool is_pipeline_data_plane(const std::string& system) {
  const auto planes = pipeline_data_planes();
  return std::ranges::find(planes, system) != planes.end();
}

bool is_glet_data_plane(const std::string& system) {
  return system == "glet" || system == "glet-serving";
}

namespace {

[[noreturn]] void throw_unknown_system(const std::string& system) {
  const auto systems = simulation_systems();
  std::string known;
  for (const auto& s : systems)
    known += (known.empty() ? "" : ", ") + s;
  const auto near = closest_name(system, systems);
  throw QueryError("unknown system '" + system + "'" + (near ? "; did you mean '" + *near + "'?" : std::string()) +
                   " (known: " + known + ")");
}

bool targets_an_application(const Workload& w) {
  return std::ranges::any_of(w.targets, [](const WorkloadTarget& t) { return t.kind == TargetKind::Application; });
}

}  // namespace

SimulationSetup prepare_simulation(const Scenario& scenario, const SimulationSpec& spec) {
  // The system first: a misspelt name is the problem to report, not what it cannot serve.
  const auto systems = simulation_systems();
  if (std::ranges::find(systems, spec.system) == systems.end()) throw_unknown_system(spec.system);
  SimulationSetup setup;
  auto listing = cluster_gpus(scenario.cluster);
  setup.gpus = std::move(listing.gpus);
  setup.servers = std::move(listing.servers);
  std::set<std::string> types;
  for (const auto& g : setup.gpus)
    types.insert(g.gpu_type);
  if (setup.gpus.empty()) throw QueryError("the scenario's cluster has no GPUs");
  const bool pipelines = is_pipeline_data_plane(spec.system);
  const bool glets = is_glet_data_plane(spec.system);
  if (pipelines && !spec.pipeline_plan)
    throw QueryError("the " + spec.system + " data plane runs a pooled-pipeline plan; give one (servescope-cli plan)");
  if (spec.system == "glet" && !spec.glet_plan)
    throw QueryError("the glet data plane runs a gpu-let plan; give one (servescope-cli plan --system glet)");
  if (!pipelines && !glets && types.size() > 1)
    throw QueryError("the " + spec.system +
                     " data plane schedules one sub-cluster of identical GPUs; this cluster mixes " + *types.begin() +
                     " and " + *std::next(types.begin()));
  const std::string gpu_type = *types.begin();

  // Workloads → per-model streams.
  auto chosen = scenario.select_workloads(spec.workloads);
  // Unless the user named workloads, run those this data plane can serve: model-serving planes
  // leave out workloads that target applications (their DAGs run on the glet data plane).
  if (spec.workloads.empty() && !glets) {
    std::erase_if(chosen, [](const Workload* w) { return targets_an_application(*w); });
    if (chosen.empty())
      throw QueryError("every workload of the scenario targets an application; the " + spec.system +
                       " data plane serves models (application DAGs run on the glet data plane)");
  }
  std::vector<std::string> model_names;
  std::map<std::string, Duration> module_slo;  // models that run application modules
  std::vector<std::pair<std::uint32_t, const Application*>> app_models;
  std::uint32_t target_index = 0;
  const auto model_index = [&](const std::string& name) {
    const auto it = std::ranges::find(model_names, name);
    if (it != model_names.end()) return static_cast<std::uint32_t>(it - model_names.begin());
    model_names.push_back(name);
    return static_cast<std::uint32_t>(model_names.size() - 1);
  };
  for (const auto* w : chosen) {
    const auto shares = w->shares();
    std::vector<Duration> trace;
    if (const auto* t = std::get_if<TraceArrivals>(&w->arrivals)) {
      const std::filesystem::path p(t->path);
      trace = load_trace_file((p.is_absolute() || spec.base_dir.empty() ? p : spec.base_dir / p).string());
    }
    for (std::size_t i = 0; i < w->targets.size(); ++i, ++target_index) {
      const auto& target = w->targets[i];
      if (target.kind != TargetKind::Model && !glets)
        throw QueryError("workload '" + w->name + "' targets application '" + target.name + "'; the " + spec.system +
                         " data plane serves models (application DAGs run on the glet data plane)");
      std::uint32_t model = 0;
      if (target.kind == TargetKind::Application) {
        const auto* app = scenario.find_application(target.name);
        if (!app) throw QueryError("workload '" + w->name + "' targets no application named '" + target.name + "'");
        model = model_index("app:" + target.name);
        if (std::ranges::none_of(app_models, [&](const auto& a) { return a.first == model; }))
          app_models.emplace_back(model, app);
        // Each DNN module's model runs with its share of the end-to-end SLO (glet digest gap 13).
        for (const auto& [name, share] :
             module_model_slos(*app, scenario.profiles, gpu_type, scenario.slo_of(target).value_or(app->slo))) {
          model_index(name);
          auto [it, fresh] = module_slo.emplace(name, share);
          if (!fresh) it->second = std::min(it->second, share);
        }
      } else {
        model = model_index(target.name);
      }
      const auto slo = scenario.slo_of(target);
      if (!slo) throw QueryError("target '" + target.name + "' of workload '" + w->name + "' has no SLO");
      setup.streams.push_back(ArrivalStream{model, target_index, *slo, w->rate_rps * shares[i], w->arrivals, trace});
    }
    setup.workload_rate_rps += w->rate_rps;
  }
  for (const auto& name : model_names) {
    // The model's SLO for batch sizing: the tightest any of its targets (or modules) asks for.
    Duration slo = Duration::max();
    for (const auto& s : setup.streams)
      if (model_names[s.model] == name) slo = std::min(slo, s.slo);
    if (const auto it = module_slo.find(name); it != module_slo.end()) slo = std::min(slo, it->second);
    if (name.starts_with("app:")) {
      setup.models.push_back(ScheduledModel{name, BatchLatency(), slo});
      continue;
    }
    const auto& profile = scenario.profiles.get(name);
    // Pipeline and glet data planes time partitions and glets from the plan instead.
    setup.models.push_back(ScheduledModel{
        name, pipelines || glets ? BatchLatency() : BatchLatency(profile, gpu_type, GpuShare::whole()), slo});
  }
  for (const auto& [model, app] : app_models) {
    AppGraph g;
    g.request_model = model;
    const auto sinks = app->sinks();
    const auto index = [&](const std::string& id) {
      for (std::size_t k = 0; k < app->modules.size(); ++k)
        if (app->modules[k].id == id) return k;
      return app->modules.size();
    };
    for (std::size_t k = 0; k < app->modules.size(); ++k) {
      AppGraph::Node n;
      if (app->modules[k].kind == ModuleKind::Dnn)
        n.model =
            static_cast<std::uint32_t>(std::ranges::find(model_names, app->modules[k].model) - model_names.begin());
      else
        n.cpu = app->modules[k].cpu_latency;
      n.copies = app->modules[k].rate_scale;
      n.sink = std::ranges::find(sinks, k) != sinks.end();
      g.nodes.push_back(std::move(n));
    }
    for (const auto& e : app->edges) {
      g.nodes[index(e.from)].next.push_back(index(e.to));
      ++g.nodes[index(e.to)].inputs;
    }
    setup.apps.push_back(std::move(g));
  }
  return setup;
}

namespace {

// GPU time one request of `model` costs when n GPUs run it in staggered batches (Eqs. 1–2).
double gpu_seconds_per_request(const ScheduledModel& model, std::int64_t n) {
  const auto budget = Duration::nanoseconds(model.slo.count_ns() * n / (n + 1));
  const int b = std::max(1, model.latency.largest_within(budget, model.latency.max_batch()));
  return model.latency.at(b).to_s() / b;
}

}  // namespace

double nominal_capacity_rps(const SimulationSetup& setup) {
  const auto n = static_cast<std::int64_t>(setup.gpus.size());
  std::vector<double> share(setup.models.size(), 0.0);
  double total = 0;
  for (const auto& s : setup.streams) {
    share[s.model] += s.rate_rps;
    total += s.rate_rps;
  }
  if (total <= 0) return 0;
  double per_request_s = 0;
  for (std::size_t m = 0; m < setup.models.size(); ++m)
    per_request_s += share[m] / total * gpu_seconds_per_request(setup.models[m], n);
  return static_cast<double>(n) / per_request_s;
}

namespace {

std::unique_ptr<DataPlane> make_single_data_plane(const std::string& system, const SimulationSetup& setup,
                                                  const SimulationSpec& spec) {
  DeferredOptions o = spec.deferred;
  if (system == "shepherd") {
    ShepherdOptions so;
    so.d_ctrl = o.d_ctrl;
    so.d_data = o.d_data;
    so.max_batch = o.max_batch;
    return std::make_unique<ShepherdScheduler>(setup.models, setup.gpus, so);
  }
  if (system == "nexus") {
    std::vector<double> rates(setup.models.size(), 0.0);
    for (const auto& s : setup.streams)
      rates[s.model] += s.rate_rps;
    return std::make_unique<NexusScheduler>(setup.models, setup.gpus, rates, spec.nexus);
  }
  if (system == "symphony") {
    o.exec_rule = ExecRule::Deferred;
    o.batch_rule = spec.batch_rule.value_or(BatchRule::WindowDrop);
    o.model_pick = ModelPick::EarliestLatest;
  } else if (system == "eager") {
    o.exec_rule = ExecRule::Eager;
    o.batch_rule = spec.batch_rule.value_or(BatchRule::Greedy);
    o.model_pick = ModelPick::OldestRequest;
  } else if (system == "clockwork") {
    o.exec_rule = ExecRule::Eager;
    o.batch_rule = spec.batch_rule.value_or(BatchRule::Greedy);
    o.model_pick = ModelPick::EarliestLatest;
  } else if (system == "latest") {
    o.exec_rule = ExecRule::Latest;
    o.batch_rule = spec.batch_rule.value_or(BatchRule::Greedy);
    o.model_pick = ModelPick::EarliestLatest;
  } else if (system == "timeout") {
    o.exec_rule = ExecRule::Timeout;
    o.batch_rule = spec.batch_rule.value_or(BatchRule::Greedy);
    o.model_pick = ModelPick::OldestRequest;
    Duration tightest = Duration::max();
    for (const auto& m : setup.models)
      tightest = std::min(tightest, m.slo);
    o.timeout = Duration::nanoseconds(
        static_cast<std::int64_t>(static_cast<double>(tightest.count_ns()) * spec.timeout_fraction_of_slo));
  } else {
    throw_unknown_system(system);
  }
  return std::make_unique<DeferredScheduler>(setup.models, setup.gpus, o);
}

// The part of `setup` that one sub-cluster sees, with local indices.
SimulationSetup sub_setup(const SimulationSetup& setup, const DataPlanePart& part) {
  SimulationSetup sub;
  std::vector<std::uint32_t> local(setup.models.size(), ~0u);
  for (std::uint32_t i = 0; i < part.models.size(); ++i) {
    local[part.models[i]] = i;
    sub.models.push_back(setup.models[part.models[i]]);
  }
  for (std::uint32_t i = 0; i < part.gpus.size(); ++i) {
    auto g = setup.gpus[part.gpus[i]];
    g.index = i;
    sub.gpus.push_back(std::move(g));
  }
  sub.servers = setup.servers;
  for (const auto& st : setup.streams) {
    if (local[st.model] == ~0u) continue;
    auto copy = st;
    copy.model = local[st.model];
    sub.workload_rate_rps += copy.rate_rps;
    sub.streams.push_back(std::move(copy));
  }
  return sub;
}

}  // namespace

SubclusterSplit split_subclusters(const SimulationSetup& setup, const SimulationSpec& spec) {
  const int k = spec.subclusters;
  if (k < 1) throw QueryError("the number of sub-clusters must be at least 1");
  if (static_cast<std::size_t>(k) > setup.gpus.size() || static_cast<std::size_t>(k) > setup.models.size())
    throw QueryError(std::to_string(k) + " sub-clusters need at least as many GPUs and models; the cluster has " +
                     std::to_string(setup.gpus.size()) + " GPUs and the workload " +
                     std::to_string(setup.models.size()) + " models");
  SubclusterSplit split;
  split.gpus.resize(static_cast<std::size_t>(k));
  split.models.resize(static_cast<std::size_t>(k));
  // Contiguous groups of GPUs (servers stay together), sizes differing by at most one.
  const auto n = setup.gpus.size();
  for (std::size_t g = 0; g < n; ++g)
    split.gpus[g * static_cast<std::size_t>(k) / n].push_back(static_cast<std::uint32_t>(g));
  if (k == 1) {
    for (std::uint32_t m = 0; m < setup.models.size(); ++m)
      split.models[0].push_back(m);
    split.partition.status = PartitionStatus::Optimal;
    split.partition.assignment.assign(setup.models.size(), 0);
    return split;
  }
  // The paper balances request rate, for its dispatchers' sake (digest §2.9). Our sub-clusters
  // have equal GPU counts and models differ tenfold in GPU time per request, so we balance GPU
  // load: each model's rate times its GPU seconds per request at the staggered batch.
  PartitionProblem problem;
  problem.subclusters = k;
  std::vector<double> rates(setup.models.size(), 0.0);
  for (const auto& st : setup.streams)
    rates[st.model] += st.rate_rps;
  const auto gpus_per_part = static_cast<std::int64_t>(setup.gpus.size()) / k;
  for (std::size_t m = 0; m < setup.models.size(); ++m)
    problem.models.push_back(
        PartitionModel{setup.models[m].name, rates[m] * gpu_seconds_per_request(setup.models[m], gpus_per_part), 0, 0});
  split.partition = solve_partition(problem, spec.partition_time_limit_s);
  if (split.partition.status == PartitionStatus::Infeasible)
    throw QueryError("sub-cluster partitioning found no assignment: " + split.partition.message);
  for (std::uint32_t m = 0; m < setup.models.size(); ++m)
    split.models[static_cast<std::size_t>(split.partition.assignment[m])].push_back(m);
  return split;
}

std::unique_ptr<DataPlane> make_data_plane(const std::string& system, const SimulationSetup& setup,
                                           const SimulationSpec& spec, const SubclusterSplit* split) {
  if (spec.subclusters <= 1 && !split) return make_single_data_plane(system, setup, spec);
  std::optional<SubclusterSplit> own;
  if (!split) split = &own.emplace(split_subclusters(setup, spec));
  std::vector<DataPlanePart> parts;
  for (std::size_t p = 0; p < split->gpus.size(); ++p) {
    DataPlanePart part{split->models[p], split->gpus[p], nullptr};
    part.plane = make_single_data_plane(system, sub_setup(setup, part), spec);
    parts.push_back(std::move(part));
  }
  return std::make_unique<PartitionedDataPlane>(std::move(parts), setup.models.size(), setup.gpus.size());
}

PreparedServing prepare_serving(const Scenario& scenario, const SimulationSpec& spec) {
  PreparedServing prepared;
  auto& setup = prepared.setup;
  auto& result = prepared.result;
  setup = prepare_simulation(scenario, spec);
  // Per data-plane model: its name, SLO and profile (none for an application's own requests).
  std::vector<std::string> names;
  std::vector<Duration> slos;
  std::vector<const ModelProfile*> profiles;
  for (const auto& m : setup.models) {
    names.push_back(m.name);
    slos.push_back(m.slo);
    profiles.push_back(scenario.profiles.find(m.name));
  }
  result.system = spec.system;
  const bool pipelines = is_pipeline_data_plane(spec.system);
  const bool glets = is_glet_data_plane(spec.system);
  auto& deployment = prepared.pipeline_deployment;
  auto& glet_deployment = prepared.glet_deployment;
  const bool serving = spec.system == "glet-serving";
  auto& serving_input = prepared.serving_input;
  auto& serving_physical = prepared.serving_physical;
  if (serving) {
    if (spec.subclusters > 1) throw QueryError("gpu-let serving does not split the cluster into sub-clusters");
    serving_input = glet_input(scenario, spec.workloads, spec.glet_gpu);
    // Two slots per GPU of the type, its first and second glet, for the whole run.
    std::vector<GpuSlot> slots;
    for (const auto& g : setup.gpus)
      if (g.gpu_type == serving_input->latency.gpu)
        for (int k = 0; k < 2; ++k) {
          slots.push_back(GpuSlot{static_cast<std::uint32_t>(slots.size()), g.name + "#" + std::to_string(k),
                                  g.gpu_type, GpuShare::whole(), g.server});
          serving_physical.push_back(g.index);
        }
    setup.gpus = std::move(slots);
    result.plan_system = "glet, rescheduled every " + std::to_string(spec.glet_serving.period.to_s()) + " s";
    result.nominal_capacity_rps = setup.workload_rate_rps;
  } else if (glets) {
    if (spec.subclusters > 1) throw QueryError("the glet data plane does not split the cluster into sub-clusters");
    glet_deployment = std::make_unique<GletDeployment>(deploy_glet_plan(*spec.glet_plan, names, setup.gpus, profiles));
    setup.gpus = glet_deployment->slots;
    result.plan_system = spec.glet_plan->system;
    for (const auto& pm : spec.glet_plan->models)
      if (std::ranges::find(names, pm.name) != names.end()) result.nominal_capacity_rps += pm.assigned_rps;
  } else if (pipelines) {
    if (spec.subclusters > 1) throw QueryError("pipeline data planes do not split the cluster into sub-clusters");
    std::vector<PhysicalGpu> physical;
    for (const auto& g : setup.gpus)
      physical.push_back(PhysicalGpu{g.name, g.gpu_type, g.server});
    deployment = std::make_unique<PipelineDeployment>(
        deploy_pipeline_plan(*spec.pipeline_plan, names, physical, setup.servers, scenario.profiles));
    setup.gpus = deployment->slots;
    result.plan_system = spec.pipeline_plan->system;
    // Load factor 1 is what the plan promises for the models the workload sends.
    for (const auto& pm : spec.pipeline_plan->models)
      if (std::ranges::find(names, pm.name) != names.end()) result.nominal_capacity_rps += pm.throughput_rps;
  } else {
    result.nominal_capacity_rps = nominal_capacity_rps(setup);
  }
  double rate = setup.workload_rate_rps;
  if (spec.rate_rps) rate = *spec.rate_rps;
  if (spec.load_factor) rate = *spec.load_factor * result.nominal_capacity_rps;
  if (rate <= 0) throw QueryError("the offered rate must be positive");
  const double scale = rate / setup.workload_rate_rps;
  for (auto& s : setup.streams)
    s.rate_rps *= scale;
  result.offered_rate_rps = rate;

  for (const auto& m : setup.models) {
    result.models.push_back(m.name);
    result.model_slo.push_back(m.slo);
  }
  for (std::uint32_t g = 0; g < setup.gpus.size(); ++g) {
    result.gpus.push_back(setup.gpus[g].name);
    result.gpu_types.push_back(setup.gpus[g].gpu_type);
    result.gpu_shares.push_back(setup.gpus[g].share.to_string());
    result.gpu_physical.push_back(deployment        ? deployment->slot_physical[g]
                                  : glet_deployment ? glet_deployment->slot_physical[g]
                                  : serving         ? serving_physical[g]
                                                    : g);
    result.gpu_duty_cycle.push_back(glet_deployment ? glet_deployment->glets[g].duty_cycle : Duration());
    result.gpu_server.push_back(setup.gpus[g].server);
  }
  for (const auto& server : scenario.cluster.servers())
    result.server_names.push_back(server.name);
  result.duration = spec.duration;
  result.warmup = std::min(spec.warmup, spec.duration);
  result.seed = spec.seed;
  result.runtime_jitter = spec.runtime_jitter;

  auto& plane = prepared.plane;
  auto& times = prepared.times;
  if (serving) {
    // The rescheduler plans the real models (an application's modules among them, at its rate);
    // application requests themselves are the AppFanout's.
    std::vector<GletModel> models;
    std::vector<double> initial;
    std::vector<int> planned_as;  // per data-plane model: its index among `models`, or −1
    for (const auto& m : setup.models) {
      const auto g =
          std::ranges::find_if(serving_input->models, [&](const GletModel& x) { return x.profile->name == m.name; });
      planned_as.push_back(g == serving_input->models.end() ? -1 : static_cast<int>(models.size()));
      if (g == serving_input->models.end()) continue;
      models.push_back(*g);
      initial.push_back(g->rate_rps * scale);
    }
    const auto& lo = serving_input->latency;
    // Every size a schedule may choose needs a timing row: one class per size.
    std::vector<std::vector<BatchLatency>> latency(profiles.size());
    std::vector<GpuShare> shares;
    for (const int size : lo.sizes)
      shares.push_back(GpuShare::percent(size));
    for (std::size_t m = 0; m < profiles.size(); ++m)
      for (const auto& share : shares)
        latency[m].push_back(profiles[m] ? BatchLatency(*profiles[m], lo.gpu, share) : BatchLatency());
    times = ExecutionTimes(std::move(latency), std::vector<std::uint32_t>(setup.gpus.size(), 0));
    times->set_class_shares(shares);
    auto owner = std::make_unique<GletServing>(
        GletRescheduler(std::move(models), lo, spec.glet_planner, serving_input->gpu_limit), names, setup.gpus,
        serving_physical, profiles, slos, std::move(planned_as), std::move(initial), spec.glet_serving);
    prepared.serving_plane = owner.get();
    plane = std::move(owner);
    result.subclusters.push_back(SubclusterSummary{setup.gpus.size(), result.models, rate});
    result.partition_status = "not split";
  } else if (glets) {
    plane = std::make_unique<GletDataPlane>(*glet_deployment, slos, spec.glet);
    times = glet_deployment->execution_times(profiles);
    result.subclusters.push_back(SubclusterSummary{setup.gpus.size(), result.models, rate});
    result.partition_status = "not split";
  } else if (pipelines) {
    if (spec.system == "reservation") {
      auto r = std::make_unique<ReservationScheduler>(*deployment, slos, spec.reservation);
      prepared.reservation = r.get();
      plane = std::move(r);
    } else {
      plane = std::make_unique<ReactivePoolScheduler>(*deployment, spec.reactive);
    }
    result.subclusters.push_back(SubclusterSummary{setup.gpus.size(), result.models, rate});
    result.partition_status = "not split";
    times = deployment->execution_times(scenario.profiles);
  } else {
    const auto split = split_subclusters(setup, spec);
    std::vector<double> model_rate(setup.models.size(), 0.0);
    for (const auto& st : setup.streams)
      model_rate[st.model] += st.rate_rps;
    for (std::size_t p = 0; p < split.gpus.size(); ++p) {
      SubclusterSummary summary;
      summary.gpus = split.gpus[p].size();
      for (const auto m : split.models[p]) {
        summary.models.push_back(setup.models[m].name);
        summary.rate_rps += model_rate[m];
      }
      result.subclusters.push_back(std::move(summary));
    }
    result.partition_status = to_string(split.partition.status);
    plane = make_data_plane(spec.system, setup, spec, &split);
    std::vector<BatchLatency> exec;
    for (const auto& m : setup.models)
      exec.push_back(m.latency);
    times = ExecutionTimes::uniform(std::move(exec), setup.gpus.size());
  }
  if (!setup.apps.empty()) plane = std::make_unique<AppFanout>(std::move(plane), setup.apps);
  return prepared;
}

namespace {

// A run is held in memory (its metrics, and its timeline when asked for), so one that would offer
// more requests than that can hold is refused up front, naming the product that is too large,
// rather than left to grow until the machine runs out of memory.
constexpr double kMaxSimulatedRequests = 2e8;

void check_request_count(const std::vector<ArrivalStream>& streams, Duration duration) {
  double rate = 0;
  for (const auto& s : streams) {
    double peak = 1;
    if (const auto* p = std::get_if<PiecewiseArrivals>(&s.process))
      for (const auto& seg : p->segments)
        peak = std::max(peak, seg.rate_multiplier);
    rate += s.rate_rps * peak;
  }
  if (const double expected = rate * duration.to_s(); expected > kMaxSimulatedRequests)
    throw QueryError("this run would offer about " + format_number(expected) + " requests (" + format_number(rate) +
                     " req/s at its peak for " + format_duration(duration) + "); a simulation holds at most " +
                     format_number(kMaxSimulatedRequests) + ": shorten it (--duration) or lower the rate");
}

}  // namespace

SimulationResult simulate(const Scenario& scenario, const SimulationSpec& spec,
                          const std::function<void(double)>& progress) {
  const auto wall_start = std::chrono::steady_clock::now();
  if (!(spec.runtime_jitter >= 0 && spec.runtime_jitter < 1))
    throw QueryError("runtime jitter must be in [0, 1) (got " + std::to_string(spec.runtime_jitter) + ")");
  if (spec.warmup >= spec.duration)
    throw QueryError("the warm-up (" + format_duration(spec.warmup) + ") covers the whole run (" +
                     format_duration(spec.duration) +
                     "): nothing would be measured; run longer than the warm-up or shorten it (--warmup)");
  if (spec.rate_rps && !(*spec.rate_rps >= kMinRateRps && *spec.rate_rps <= kMaxRateRps))
    throw QueryError("an offered rate of " + format_number(*spec.rate_rps) + " req/s is outside " +
                     format_number(kMinRateRps) + " to " + format_number(kMaxRateRps) + " req/s");
  auto prepared = prepare_serving(scenario, spec);
  check_request_count(prepared.setup.streams, spec.duration);
  auto& setup = prepared.setup;
  auto& result = prepared.result;
  auto& plane = prepared.plane;
  const bool glets = is_glet_data_plane(spec.system);
  const auto* serving_plane = prepared.serving_plane;
  const auto* serving_input = prepared.serving_input ? &*prepared.serving_input : nullptr;
  const auto* glet_deployment = prepared.glet_deployment.get();
  std::vector<const ModelProfile*> profiles;
  for (const auto& m : setup.models)
    profiles.push_back(scenario.profiles.find(m.name));
  const Time until = spec.duration;
  Duration bin = spec.utilisation_bin;
  if (bin <= Duration())
    bin = std::max(Duration::milliseconds(1), Duration::nanoseconds(spec.duration.count_ns() / 200));
  result.metrics =
      std::make_unique<MetricsCollector>(setup.models.size(), setup.gpus.size(), result.warmup, until, bin);
  TimelineRecorder timeline;
  RecorderFanout fanout;
  fanout.add(*result.metrics);
  if (spec.timeline) fanout.add(timeline);
  std::optional<RequestLogRecorder> request_log;
  if (spec.request_log) fanout.add(request_log.emplace(*spec.request_log, result.models, result.gpus));

  WorkloadArrivals arrivals(setup.streams, until, spec.seed);
  Simulator sim(setup.gpus.size(), std::move(*prepared.times), arrivals, *plane, fanout);
  std::vector<std::uint32_t> gpu_server;
  for (const auto& g : setup.gpus)
    gpu_server.push_back(g.server);
  sim.set_network(NetworkLinks(setup.servers, std::move(gpu_server)));
  if (spec.runtime_jitter > 0) sim.set_runtime_jitter(spec.runtime_jitter, spec.seed ^ 0x9e3779b97f4a7c15ULL);
  // Glets on one GPU slow each other down while both run (the linear interference model of the
  // scenario's profiles is the simulated truth, whatever the plan assumed).
  std::vector<const UtilisationProfile*> utilisation;
  const InterferenceModel* interference = nullptr;
  if (glets) {
    const auto& gpu = serving_plane ? serving_input->latency.gpu : spec.glet_plan->gpu;
    for (const auto& i : scenario.profiles.interference)
      if (i.gpu == gpu) interference = &i;
    for (const auto& m : setup.models) {
      utilisation.push_back(nullptr);
      for (const auto& u : scenario.profiles.utilisation)
        if (u.model == m.name && u.gpu == gpu) utilisation.back() = &u;
    }
  }
  if (interference)
    sim.set_slowdown([&](std::uint32_t gpu, const Batch& batch) {
      // With rescheduling, the glets in force now (a batch started on a slot before a switch ran at
      // the old split; it is timed when it starts).
      const auto& glets_now = serving_plane ? serving_plane->deployment().glets : glet_deployment->glets;
      const auto& slot = glets_now[gpu];
      if (!slot.neighbour) return 1.0;
      const Batch* other = sim.running(*slot.neighbour);
      if (!other) return 1.0;
      return interference_factor(*interference, utilisation[batch.model], static_cast<int>(batch.requests.size()),
                                 slot.size_percent, utilisation[other->model], static_cast<int>(other->requests.size()),
                                 glets_now[*slot.neighbour].size_percent);
    });
  if (progress || spec.stop.stop_possible()) {
    const double horizon = static_cast<double>((until + spec.drain).count_ns());
    sim.set_progress([&](Time now) {
      if (spec.stop.stop_requested()) throw Cancelled("the simulation was stopped");
      if (progress) progress(std::min(1.0, static_cast<double>(now.count_ns()) / horizon));
    });
  }
  sim.run(until + spec.drain);
  if (progress) progress(1.0);
  result.sim = sim.stats();
  if (serving_plane) result.reorganisations = serving_plane->reorganisations();
  if (prepared.reservation) {
    result.probes = prepared.reservation->stats().probes;
    result.dispatches = prepared.reservation->stats().dispatches;
  }
  result.timeline = timeline.spans_by_start();
  result.transfers = timeline.transfers();
  result.queue_samples = timeline.queue_samples();
  result.span_requests = timeline.requests();
  result.drops = timeline.drops();
  result.wall_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - wall_start).count();
  return std::move(result);
}

std::map<std::string, double> busy_by_gpu_type(const SimulationResult& result) {
  return busy_by_class(gpu_slot_classes(result), result.metrics->gpu_busy_fraction());
}

std::vector<GpuSlotClass> gpu_slot_classes(const SimulationResult& result) {
  std::vector<GpuSlotClass> slots;
  for (std::size_t g = 0; g < result.gpus.size(); ++g)
    slots.push_back({result.gpu_types[g], GpuShare::parse(result.gpu_shares[g]).value_or(GpuShare::whole()).fraction(),
                     result.gpu_physical[g]});
  return slots;
}

}  // namespace servescope::engine
