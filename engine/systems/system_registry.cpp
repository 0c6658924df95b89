#include "engine/systems/system_registry.h"

#include <algorithm>

#include "engine/systems/cost/cost_system.h"
#include "engine/systems/glet/glet_system.h"
#include "engine/systems/ppipe/ppipe_system.h"
#include "engine/systems/symphony/symphony_system.h"
#include "model/core/error.h"
#include "model/core/text.h"

namespace servescope::engine {

SystemRegistry::SystemRegistry() {
  add(symphony_family());
  add(ppipe_family());
  add(glet_family());
  add(cost_family());
}

SystemRegistry& SystemRegistry::instance() {
  static SystemRegistry registry;
  return registry;
}

void SystemRegistry::add(std::unique_ptr<ServingFamily> family) {
  auto planes = family->data_planes();
  for (const auto& t : planes) {
    if (std::ranges::any_of(planes_, [&](const DataPlaneEntry& e) { return e.traits.name == t.name; }))
      throw QueryError("a serving system named '" + t.name + "' is registered already");
  }
  for (const auto& p : family->planners())
    if (std::ranges::any_of(families_, [&](const auto& f) { return f->plans(p); }))
      throw QueryError("a planner named '" + p + "' is registered already");
  for (auto& t : planes)
    planes_.push_back(DataPlaneEntry{std::move(t), family.get()});
  families_.push_back(std::move(family));
}

std::vector<DataPlaneTraits> data_planes() {
  std::vector<DataPlaneTraits> out;
  for (const auto& e : SystemRegistry::instance().data_planes())
    out.push_back(e.traits);
  return out;
}

std::vector<std::string> simulation_systems() {
  std::vector<std::string> out;
  for (const auto& e : SystemRegistry::instance().data_planes())
    out.push_back(e.traits.name);
  return out;
}

namespace {

const SystemRegistry::DataPlaneEntry& data_plane_entry(const std::string& system) {
  const auto& planes = SystemRegistry::instance().data_planes();
  const auto it = std::ranges::find(planes, system, [](const auto& e) { return e.traits.name; });
  if (it != planes.end()) return *it;
  const auto systems = simulation_systems();
  std::string known;
  for (const auto& s : systems)
    known += (known.empty() ? "" : ", ") + s;
  const auto near = closest_name(system, systems);
  throw QueryError("unknown system '" + system + "'" + (near ? "; did you mean '" + *near + "'?" : std::string()) +
                   " (known: " + known + ")");
}

}  // namespace

const DataPlaneTraits& data_plane_traits(const std::string& system) {
  return data_plane_entry(system).traits;
}

const ServingFamily& data_plane_family(const std::string& system) {
  return *data_plane_entry(system).family;
}

std::vector<std::pair<PlannerFamily, std::string>> scenario_planners() {
  std::vector<std::pair<PlannerFamily, std::string>> out;
  for (const auto& family : SystemRegistry::instance().families())
    for (auto& name : family->planners())
      out.emplace_back(family->planner_family(), std::move(name));
  return out;
}

bool is_planner(const std::string& system) {
  const auto& families = SystemRegistry::instance().families();
  return std::ranges::any_of(families, [&](const auto& f) { return f->plans(system); });
}

const ServingFamily& planning_family(const std::string& system) {
  for (const auto& family : SystemRegistry::instance().families())
    if (family->plans(system)) return *family;
  throw QueryError("unknown planner '" + system + "'");
}

PlannerFamily planner_family(const std::string& system) {
  return planning_family(system).planner_family();
}

const ServingFamily* plan_kind_family(std::string_view kind) {
  for (const auto& family : SystemRegistry::instance().families())
    if (!family->plan_kind().empty() && family->plan_kind() == kind) return family.get();
  return nullptr;
}

}  // namespace servescope::engine
