#include "model/app/application.h"

#include <algorithm>

namespace servescope {
namespace {

std::size_t index_of(const Application& app, std::string_view id) {
  const auto it = std::ranges::find(app.modules, id, &AppModule::id);
  return static_cast<std::size_t>(it - app.modules.begin());
}

}  // namespace

const AppModule* Application::find(std::string_view id) const {
  const auto i = index_of(*this, id);
  return i < modules.size() ? &modules[i] : nullptr;
}

std::optional<std::vector<std::size_t>> Application::topological_order() const {
  const auto n = modules.size();
  std::vector<int> indegree(n, 0);
  std::vector<std::vector<std::size_t>> out(n);
  for (const auto& e : edges) {
    const auto a = index_of(*this, e.from), b = index_of(*this, e.to);
    if (a >= n || b >= n) return std::nullopt;
    out[a].push_back(b);
    ++indegree[b];
  }
  // Kahn's algorithm, taking the lowest ready index first so the order is stable.
  std::vector<std::size_t> order, ready;
  for (std::size_t i = n; i-- > 0;)
    if (indegree[i] == 0) ready.push_back(i);
  while (!ready.empty()) {
    const auto i = ready.back();
    ready.pop_back();
    order.push_back(i);
    for (auto j : out[i])
      if (--indegree[j] == 0) {
        ready.push_back(j);
        std::ranges::sort(ready, std::greater<>());
      }
  }
  if (order.size() != n) return std::nullopt;
  return order;
}

std::vector<std::size_t> Application::sources() const {
  std::vector<std::size_t> out;
  for (std::size_t i = 0; i < modules.size(); ++i)
    if (std::ranges::none_of(edges, [&](const AppEdge& e) { return e.to == modules[i].id; })) out.push_back(i);
  return out;
}

std::vector<std::size_t> Application::sinks() const {
  std::vector<std::size_t> out;
  for (std::size_t i = 0; i < modules.size(); ++i)
    if (std::ranges::none_of(edges, [&](const AppEdge& e) { return e.from == modules[i].id; })) out.push_back(i);
  return out;
}

}  // namespace servescope
