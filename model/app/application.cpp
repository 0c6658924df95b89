#include "model/app/application.h"

#include <algorithm>
#include <ranges>

namespace servescope {
std::size_t Application::index_of(std::string_view id) const {
  return static_cast<std::size_t>(std::ranges::find(modules, id, &AppModule::id) - modules.begin());
}

const AppModule* Application::find(std::string_view id) const {
  const auto i = index_of(id);
  return i < modules.size() ? &modules[i] : nullptr;
}

std::optional<std::vector<std::size_t>> Application::topological_order() const {
  const auto n = modules.size();
  std::vector<int> indegree(n, 0);
  std::vector<std::vector<std::size_t>> out(n);
  for (const auto& e : edges) {
    const auto a = index_of(e.from), b = index_of(e.to);
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

std::vector<Duration> Application::module_slos(const std::vector<Duration>& cost) const {
  const auto order = topological_order();
  const std::size_t n = modules.size();
  std::vector<Duration> up(n), down(n), out(n);
  if (!order || cost.size() != n) return out;
  const auto index = [&](const std::string& id) {
    for (std::size_t i = 0; i < n; ++i)
      if (modules[i].id == id) return i;
    return n;
  };
  for (const auto i : *order) {
    Duration longest;
    for (const auto& e : edges)
      if (index(e.to) == i) longest = std::max(longest, up[index(e.from)]);
    up[i] = longest + cost[i];
  }
  for (const auto i : std::views::reverse(*order)) {
    Duration longest;
    for (const auto& e : edges)
      if (index(e.from) == i) longest = std::max(longest, down[index(e.to)]);
    down[i] = longest + cost[i];
  }
  for (std::size_t i = 0; i < n; ++i) {
    const Duration path = up[i] + down[i] - cost[i];
    out[i] = path > Duration() ? Duration::from_s(slo.to_s() * cost[i].to_s() / path.to_s()) : slo;
  }
  return out;
}

std::vector<std::pair<std::string, Duration>> module_model_slos(const Application& app, const ProfileSet& profiles,
                                                                std::string_view gpu, Duration slo) {
  std::vector<Duration> cost;
  for (const auto& m : app.modules) {
    if (m.kind == ModuleKind::Cpu) {
      cost.push_back(m.cpu_latency);
      continue;
    }
    // The digest's rule: latency at batch 32 (or the largest profiled) on the whole GPU.
    const auto& p = profiles.get(m.model);
    const int batch = std::min(32, std::max(1, p.max_batch(gpu, GpuShare::whole())));
    cost.push_back(p.latency({gpu, GpuShare::whole(), batch, std::nullopt}));
  }
  const auto shares = app.module_slos(cost);
  std::vector<std::pair<std::string, Duration>> out;
  for (std::size_t k = 0; k < app.modules.size(); ++k)
    if (app.modules[k].kind == ModuleKind::Dnn)
      out.emplace_back(app.modules[k].model, Duration::from_s(slo.to_s() * shares[k].to_s() / app.slo.to_s()));
  return out;
}

std::vector<std::size_t> Application::sinks() const {
  std::vector<std::size_t> out;
  for (std::size_t i = 0; i < modules.size(); ++i)
    if (std::ranges::none_of(edges, [&](const AppEdge& e) { return e.from == modules[i].id; })) out.push_back(i);
  return out;
}

}  // namespace servescope
