#include "model/scenario/scenario_editing.h"

#include <algorithm>

#include "model/core/error.h"
#include "model/core/text.h"

namespace servescope {
namespace {

bool has_application(const Scenario& scenario, std::string_view name) {
  return std::ranges::any_of(scenario.applications, [&](const Application& a) { return a.name == name; });
}

}  // namespace

std::string unique_application_name(const Scenario& scenario, std::string_view base) {
  return unique_name(
      std::string(base.empty() ? "application" : base),
      [&scenario](const std::string& name) { return has_application(scenario, name); }, " ");
}

Duration derived_slo(const Application& app, const ProfileSet& profiles) {
  constexpr auto kUnknown = Duration::milliseconds(100);
  const auto order = app.topological_order();
  // Without a DNN there is no profiled latency with its slack to go by.
  if (!order || std::ranges::none_of(app.modules, [](const AppModule& m) { return m.kind == ModuleKind::Dnn; }))
    return kUnknown;
  std::vector<Duration> cost(app.modules.size());
  for (std::size_t k = 0; k < app.modules.size(); ++k) {
    const auto& m = app.modules[k];
    if (m.kind == ModuleKind::Cpu) {
      cost[k] = m.cpu_latency;
      continue;
    }
    const auto* profile = profiles.find(m.model);
    cost[k] = profile && profile->default_slo ? *profile->default_slo : kUnknown;
  }
  // Longest path in topological order: each module's cost plus the costliest path into it.
  std::vector<Duration> until(app.modules.size());
  Duration longest;
  for (const auto k : *order) {
    Duration before;
    for (const auto& e : app.edges)
      if (e.to == app.modules[k].id) before = std::max(before, until[app.index_of(e.from)]);
    until[k] = before + cost[k];
    longest = std::max(longest, until[k]);
  }
  return longest > Duration() ? longest : kUnknown;
}

Application starter_application(const Scenario& scenario, std::string name) {
  Application app;
  app.name = std::move(name);
  const auto& models = scenario.profiles.models;
  if (models.empty())
    app.modules.push_back(AppModule{"cpu", ModuleKind::Cpu, {}, Duration::milliseconds(1), 1});
  else
    app.modules.push_back(AppModule{models.front().name, ModuleKind::Dnn, models.front().name, {}, 1});
  app.slo = derived_slo(app, scenario.profiles);
  return app;
}

Scenario with_renamed_application(Scenario scenario, std::string_view from, const std::string& to) {
  const auto it = std::ranges::find(scenario.applications, from, &Application::name);
  if (it == scenario.applications.end()) throw QueryError("no application named " + quote_for_message(from));
  if (to.empty()) throw QueryError("an application needs a name");
  if (to == from) return scenario;
  if (has_application(scenario, to)) throw QueryError("another application is called " + quote_for_message(to));
  it->name = to;
  for (auto& workload : scenario.workloads)
    for (auto& target : workload.targets)
      if (target.kind == TargetKind::Application && target.name == from) target.name = to;
  return scenario;
}

Scenario with_replaced_profiles(Scenario scenario, const ProfileSet& replacement) {
  auto& set = scenario.profiles;
  scenario.profile_includes.clear();
  for (auto& m : set.models)
    m.origin.clear();
  for (auto& u : set.utilisation)
    u.origin.clear();
  for (auto& i : set.interference)
    i.origin.clear();
  for (const auto& m : replacement.models) {
    auto it = std::ranges::find(set.models, m.name, &ModelProfile::name);
    if (it == set.models.end()) it = set.models.insert(set.models.end(), m);
    *it = m;
    it->origin.clear();
  }
  std::erase_if(set.contention, [&](const ContentionModel& c) {
    return std::ranges::find(replacement.contention, c.gpu, &ContentionModel::gpu) != replacement.contention.end();
  });
  for (auto& c : set.contention)
    c.origin.clear();
  for (const auto& c : replacement.contention) {
    set.contention.push_back(c);
    set.contention.back().origin.clear();
  }
  return scenario;
}

}  // namespace servescope
