#include "model/scenario/scenario.h"

#include <algorithm>
#include <set>

#include "model/core/error.h"
#include "model/core/text.h"

namespace servescope {

GpuCatalog Scenario::catalog() const {
  GpuCatalog c = GpuCatalog::builtin();
  for (const auto& g : custom_gpus)
    c.add_or_replace(g);
  return c;
}

const Application* Scenario::find_application(std::string_view app) const {
  const auto it = std::ranges::find(applications, app, &Application::name);
  return it == applications.end() ? nullptr : &*it;
}

std::vector<std::string> Scenario::gpu_types_in_use() const {
  std::set<std::string> used;
  for (const auto& n : cluster.nodes)
    used.insert(n.gpu);
  for (const auto& m : profiles.models)
    for (const auto& [gpu, share] : m.configurations())
      used.insert(gpu);
  std::vector<std::string> out;
  const auto all = catalog();  // a named copy: gpus() is a view into it
  for (const auto& g : all.gpus())
    if (used.contains(g.id)) out.push_back(g.id);
  return out;
}

std::optional<Duration> Scenario::slo_of(const WorkloadTarget& target) const {
  if (target.slo) return target.slo;
  if (target.kind == TargetKind::Model) {
    if (const auto* p = profiles.find(target.name)) return p->default_slo;
    return std::nullopt;
  }
  if (const auto* a = find_application(target.name)) return a->slo;
  return std::nullopt;
}

std::string unique_artifact_name(const std::vector<SavedArtifact>& list, const std::string& base) {
  return unique_name(base, [&list](const std::string& name) {
    return std::ranges::any_of(list, [&](const SavedArtifact& a) { return a.name == name; });
  });
}

std::vector<const Workload*> Scenario::select_workloads(const std::vector<std::string>& names) const {
  for (const auto& wanted : names)
    if (std::ranges::none_of(workloads, [&](const Workload& w) { return w.name == wanted; }))
      throw QueryError("no workload named '" + wanted + "'");
  std::vector<const Workload*> chosen;
  for (const auto& w : workloads)
    if (names.empty() || std::ranges::find(names, w.name) != names.end()) chosen.push_back(&w);
  if (chosen.empty()) throw QueryError("the scenario has no workload");
  return chosen;
}

namespace {

std::string idx(const std::string& base, std::size_t i) {
  return base + "[" + std::to_string(i) + "]";
}

void check_gpu(const GpuCatalog& catalog, const std::string& gpu, const std::string& path,
               std::vector<Diagnostic>& out) {
  if (!catalog.find(gpu))
    out.push_back({path, "unknown GPU type '" + gpu + "' (known: " + catalog.known_ids() + ")"});
  else if (catalog.find(gpu)->id != gpu)
    out.push_back({path, "GPU type '" + gpu + "' is an alias; write its id '" + catalog.find(gpu)->id + "'"});
}

template <typename T, typename Key>
void check_unique(const std::vector<T>& items, Key key, const std::string& base, const std::string& what,
                  std::vector<Diagnostic>& out) {
  std::set<std::string> seen;
  for (std::size_t i = 0; i < items.size(); ++i) {
    const std::string& k = items[i].*key;
    if (!seen.insert(k).second) out.push_back({idx(base, i), "duplicate " + what + " '" + k + "'"});
  }
}

}  // namespace

std::vector<Diagnostic> check_scenario(const Scenario& s, const std::string& root) {
  std::vector<Diagnostic> out;
  const GpuCatalog catalog = s.catalog();

  check_unique(s.custom_gpus, &GpuSpec::id, root + ".gpu_types", "GPU type id", out);

  const auto nodes = root + ".cluster.nodes";
  check_unique(s.cluster.nodes, &Node::name, nodes, "node name", out);
  for (std::size_t i = 0; i < s.cluster.nodes.size(); ++i)
    check_gpu(catalog, s.cluster.nodes[i].gpu, idx(nodes, i) + ".gpu", out);

  // Included profiles are checked in their own files; report only what this file wrote.
  const auto profiles = root + ".profiles";
  std::size_t inline_index = 0;
  for (const auto& m : s.profiles.models) {
    if (!m.origin.empty()) continue;
    const auto base = idx(profiles, inline_index++);
    for (std::size_t t = 0; t < m.block_tables.size(); ++t)
      check_gpu(catalog, m.block_tables[t].gpu, idx(base + ".tables", t) + ".gpu", out);
    for (std::size_t t = 0; t < m.batch_tables.size(); ++t)
      check_gpu(catalog, m.batch_tables[t].gpu, idx(base + ".tables", t) + ".gpu", out);
    for (std::size_t t = 0; t < m.linear_fits.size(); ++t)
      check_gpu(catalog, m.linear_fits[t].gpu, idx(base + ".fits", t) + ".gpu", out);
  }

  const auto apps = root + ".applications";
  check_unique(s.applications, &Application::name, apps, "application name", out);
  for (std::size_t a = 0; a < s.applications.size(); ++a) {
    const auto& app = s.applications[a];
    const auto base = idx(apps, a);
    if (app.modules.empty()) out.push_back({base + ".modules", "an application needs a module"});
    check_unique(app.modules, &AppModule::id, base + ".modules", "module id", out);
    for (std::size_t m = 0; m < app.modules.size(); ++m) {
      const auto& mod = app.modules[m];
      if (mod.kind == ModuleKind::Dnn && !s.profiles.find(mod.model))
        out.push_back({idx(base + ".modules", m) + ".model", "no profile for model '" + mod.model + "'"});
    }
    bool edges_ok = true;
    for (std::size_t e = 0; e < app.edges.size(); ++e) {
      const auto& edge = app.edges[e];
      for (const auto* end : {&edge.from, &edge.to})
        if (!app.find(*end)) {
          out.push_back({idx(base + ".edges", e), "edge names unknown module '" + *end + "'"});
          edges_ok = false;
        }
      if (edge.from == edge.to) {
        out.push_back({idx(base + ".edges", e), "edge from '" + edge.from + "' to itself"});
        edges_ok = false;
      }
    }
    if (edges_ok && !app.topological_order())
      out.push_back({base + ".edges", "the edges form a cycle; an application must be a DAG"});
  }

  const auto workloads = root + ".workloads";
  check_unique(s.workloads, &Workload::name, workloads, "workload name", out);
  for (std::size_t w = 0; w < s.workloads.size(); ++w) {
    const auto& wl = s.workloads[w];
    const auto base = idx(workloads, w);
    if (wl.targets.empty()) out.push_back({base + ".targets", "a workload needs a target"});
    for (std::size_t t = 0; t < wl.targets.size(); ++t) {
      const auto& target = wl.targets[t];
      const auto path = idx(base + ".targets", t);
      const bool exists = target.kind == TargetKind::Model ? s.profiles.find(target.name) != nullptr
                                                           : s.find_application(target.name) != nullptr;
      if (!exists) {
        out.push_back({path + ".name", std::string("no ") +
                                           (target.kind == TargetKind::Model ? "model profile" : "application") +
                                           " named '" + target.name + "'"});
      } else if (!s.slo_of(target)) {
        out.push_back({path, "no SLO: give the target an slo_us, or its model a default_slo_us"});
      }
    }
    if (wl.popularity == Popularity::Explicit) {
      double total = 0;
      for (const auto& t : wl.targets)
        total += t.weight;
      if (!wl.targets.empty() && total <= 0) out.push_back({base + ".targets", "the target weights add up to zero"});
    }
  }
  return out;
}

}  // namespace servescope
