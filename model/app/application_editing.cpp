#include "model/app/application_editing.h"

#include <algorithm>
#include <numeric>

#include "model/core/error.h"
#include "model/core/text.h"

namespace servescope {
namespace {

// Whether `to` reaches `from` along the edges (so from → to would close a cycle).
bool reaches(const Application& app, std::string_view start, std::string_view goal) {
  std::vector<std::string_view> stack{start}, seen;
  while (!stack.empty()) {
    const auto at = stack.back();
    stack.pop_back();
    if (at == goal) return true;
    if (std::ranges::find(seen, at) != seen.end()) continue;
    seen.push_back(at);
    for (const auto& e : app.edges)
      if (e.from == at) stack.push_back(e.to);
  }
  return false;
}

}  // namespace

std::optional<std::string> connection_problem(const Application& app, std::string_view from, std::string_view to) {
  if (!app.find(from)) return "no module '" + std::string(from) + "'";
  if (!app.find(to)) return "no module '" + std::string(to) + "'";
  if (from == to) return "a module cannot feed itself";
  if (std::ranges::any_of(app.edges, [&](const AppEdge& e) { return e.from == from && e.to == to; }))
    return std::string(from) + " already feeds " + std::string(to);
  if (reaches(app, to, from))
    return std::string(to) + " already leads to " + std::string(from) + ": the edge would close a cycle";
  return std::nullopt;
}

Application with_module(Application app, AppModule module) {
  if (module.id.empty()) throw QueryError("a module needs an id");
  if (app.find(module.id)) throw QueryError("application '" + app.name + "' already has a module '" + module.id + "'");
  app.modules.push_back(std::move(module));
  return app;
}

Application without_module(Application app, std::string_view id) {
  const auto i = app.index_of(id);
  if (i >= app.modules.size()) throw QueryError("no module '" + std::string(id) + "'");
  app.modules.erase(app.modules.begin() + static_cast<std::ptrdiff_t>(i));
  std::erase_if(app.edges, [&](const AppEdge& e) { return e.from == id || e.to == id; });
  return app;
}

Application with_renamed_module(Application app, std::string_view id, std::string new_id) {
  const auto i = app.index_of(id);
  if (i >= app.modules.size()) throw QueryError("no module '" + std::string(id) + "'");
  if (new_id.empty()) throw QueryError("a module needs an id");
  if (new_id != id && app.find(new_id)) throw QueryError("a module '" + new_id + "' already exists");
  for (auto& e : app.edges) {
    if (e.from == id) e.from = new_id;
    if (e.to == id) e.to = new_id;
  }
  app.modules[i].id = std::move(new_id);
  return app;
}

Application with_edge(Application app, std::string_view from, std::string_view to) {
  if (auto why = connection_problem(app, from, to)) throw QueryError(*why);
  app.edges.push_back(AppEdge{std::string(from), std::string(to)});
  return app;
}

Application without_edge(Application app, std::string_view from, std::string_view to) {
  const auto before = app.edges.size();
  std::erase_if(app.edges, [&](const AppEdge& e) { return e.from == from && e.to == to; });
  if (app.edges.size() == before) throw QueryError("no edge " + std::string(from) + " → " + std::string(to));
  return app;
}

std::string unique_module_id(const Application& app, std::string_view base) {
  return unique_name(
      std::string(base.empty() ? "module" : base), [&app](const std::string& id) { return app.find(id) != nullptr; },
      "-");
}

std::vector<LayoutSlot> layered_layout(const Application& app) {
  const auto order = app.topological_order();
  if (!order) throw QueryError("application '" + app.name + "' has a cycle");
  const std::size_t n = app.modules.size();
  std::vector<std::vector<std::size_t>> preds(n), succs(n);
  for (const auto& e : app.edges) {
    const auto a = app.index_of(e.from), b = app.index_of(e.to);
    succs[a].push_back(b);
    preds[b].push_back(a);
  }
  std::vector<LayoutSlot> slot(n);
  int layers = 0;
  for (const auto m : *order) {
    for (const auto p : preds[m])
      slot[m].layer = std::max(slot[m].layer, slot[p].layer + 1);
    layers = std::max(layers, slot[m].layer + 1);
  }
  std::vector<std::vector<std::size_t>> rows(static_cast<std::size_t>(layers));
  for (std::size_t m = 0; m < n; ++m)
    rows[static_cast<std::size_t>(slot[m].layer)].push_back(m);
  const auto number = [&] {
    for (const auto& row : rows)
      for (std::size_t k = 0; k < row.size(); ++k)
        slot[row[k]].position = static_cast<int>(k);
  };
  number();
  // Barycentre sweeps: a node goes to the mean position of its neighbours on the other side;
  // ties keep the current order, so the result is stable.
  const auto sweep = [&](std::size_t layer, const std::vector<std::vector<std::size_t>>& side) {
    auto& row = rows[layer];
    std::vector<double> key(n);
    for (const auto m : row) {
      const auto& nb = side[m];
      key[m] = nb.empty() ? slot[m].position : std::accumulate(nb.begin(), nb.end(), 0.0, [&](double s, std::size_t x) {
                                                 return s + slot[x].position;
                                               }) / static_cast<double>(nb.size());
    }
    std::ranges::stable_sort(row, [&](std::size_t a, std::size_t b) { return key[a] < key[b]; });
    for (std::size_t k = 0; k < row.size(); ++k)
      slot[row[k]].position = static_cast<int>(k);
  };
  for (int round = 0; round < 4; ++round) {
    for (std::size_t l = 1; l < rows.size(); ++l)
      sweep(l, preds);
    for (std::size_t l = rows.size(); l-- > 1;)
      sweep(l - 1, succs);
  }
  return slot;
}

int layout_crossings(const Application& app, const std::vector<LayoutSlot>& layout) {
  std::vector<std::pair<LayoutSlot, LayoutSlot>> segs;
  for (const auto& e : app.edges)
    segs.emplace_back(layout[app.index_of(e.from)], layout[app.index_of(e.to)]);
  int crossings = 0;
  for (std::size_t i = 0; i < segs.size(); ++i)
    for (std::size_t j = i + 1; j < segs.size(); ++j) {
      const auto& [a1, a2] = segs[i];
      const auto& [b1, b2] = segs[j];
      // Only edges between the same two adjacent layers can cross in a layered drawing.
      if (a1.layer != b1.layer || a2.layer != b2.layer || a2.layer != a1.layer + 1) continue;
      if ((a1.position - b1.position) * (a2.position - b2.position) < 0) ++crossings;
    }
  return crossings;
}

}  // namespace servescope
