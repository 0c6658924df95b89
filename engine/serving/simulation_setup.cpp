#include "engine/serving/simulation_setup.h"

#include <algorithm>
#include <filesystem>
#include <map>
#include <set>

#include "engine/serving/cluster_gpus.h"
#include "model/core/error.h"
#include "model/io/trace_file.h"

namespace servescope::engine {
namespace {

bool targets_an_application(const Workload& w) {
  return std::ranges::any_of(w.targets, [](const WorkloadTarget& t) { return t.kind == TargetKind::Application; });
}

}  // namespace

SimulationSetup prepare_simulation(const Scenario& scenario, const SimulationSpec& spec,
                                   const DataPlaneTraits& system) {
  SimulationSetup setup;
  auto listing = cluster_gpus(scenario.cluster);
  setup.gpus = std::move(listing.gpus);
  setup.servers = std::move(listing.servers);
  std::set<std::string> types;
  for (const auto& g : setup.gpus)
    types.insert(g.gpu_type);
  if (setup.gpus.empty()) throw QueryError("the scenario's cluster has no GPUs");
  if (!system.places_own_gpus && types.size() > 1)
    throw QueryError("the " + spec.system +
                     " data plane schedules one sub-cluster of identical GPUs; this cluster mixes " + *types.begin() +
                     " and " + *std::next(types.begin()));
  const std::string gpu_type = *types.begin();

  // Workloads → per-model streams.
  auto chosen = scenario.select_workloads(spec.workloads);
  // Unless the user named workloads, run those this data plane can serve: model-serving planes
  // leave out workloads that target applications (their DAGs run on the glet data plane).
  if (spec.workloads.empty() && !system.serves_applications) {
    std::erase_if(chosen, [](const Workload* w) { return targets_an_application(*w); });
    if (chosen.empty())
      throw QueryError("every workload of the scenario targets an application; the " + spec.system +
                       " data plane serves models (application DAGs run on the glet data plane)");
  }
  std::vector<std::string> names;
  std::map<std::string, Duration> module_slo;  // models that run application modules
  std::vector<std::pair<std::uint32_t, const Application*>> app_models;
  std::uint32_t target_index = 0;
  const auto model_index = [&](const std::string& name) {
    const auto it = std::ranges::find(names, name);
    if (it != names.end()) return static_cast<std::uint32_t>(it - names.begin());
    names.push_back(name);
    return static_cast<std::uint32_t>(names.size() - 1);
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
      if (target.kind != TargetKind::Model && !system.serves_applications)
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
  for (const auto& name : names) {
    // The model's SLO for batch sizing: the tightest any of its targets (or modules) asks for.
    Duration slo = Duration::max();
    for (const auto& s : setup.streams)
      if (names[s.model] == name) slo = std::min(slo, s.slo);
    if (const auto it = module_slo.find(name); it != module_slo.end()) slo = std::min(slo, it->second);
    if (name.starts_with("app:")) {
      setup.models.push_back(ScheduledModel{name, BatchLatency(), slo});
      continue;
    }
    const auto& profile = scenario.profiles.get(name);
    // Pipeline and glet data planes time partitions and glets from the plan instead.
    setup.models.push_back(ScheduledModel{
        name, system.places_own_gpus ? BatchLatency() : BatchLatency(profile, gpu_type, GpuShare::whole()), slo});
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
        n.model = static_cast<std::uint32_t>(std::ranges::find(names, app->modules[k].model) - names.begin());
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

NetworkLinks network_of(const SimulationSetup& setup) {
  std::vector<std::uint32_t> gpu_server;
  gpu_server.reserve(setup.gpus.size());
  for (const auto& g : setup.gpus)
    gpu_server.push_back(g.server);
  return NetworkLinks(setup.servers, std::move(gpu_server));
}

std::vector<std::string> model_names(const SimulationSetup& setup) {
  std::vector<std::string> names;
  for (const auto& m : setup.models)
    names.push_back(m.name);
  return names;
}

std::vector<const ModelProfile*> model_profiles(const Scenario& scenario, const SimulationSetup& setup) {
  std::vector<const ModelProfile*> profiles;
  for (const auto& m : setup.models)
    profiles.push_back(scenario.profiles.find(m.name));
  return profiles;
}

double gpu_seconds_per_request(const ScheduledModel& model, std::int64_t n) {
  const auto budget = Duration::nanoseconds(model.slo.count_ns() * n / (n + 1));
  const int b = std::max(1, model.latency.largest_within(budget, model.latency.max_batch()));
  return model.latency.at(b).to_s() / b;
}

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

}  // namespace servescope::engine
