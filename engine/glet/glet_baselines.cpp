#include "engine/glet/glet_baselines.h"

#include <algorithm>

#include "model/core/error.h"

namespace servescope::engine {
namespace {

GletLayout split_evenly(int gpus) {
  GletLayout l;
  l.gpus.assign(static_cast<std::size_t>(gpus), GletGpu{{Glet{50, {}, {}, {}}, Glet{50, {}, {}, {}}}});
  return l;
}

}  // namespace

const std::vector<std::string>& glet_systems() {
  static const std::vector<std::string> systems = {"glet", "glet-noint", "sbp", "sbp-even", "greedy-bestfit", "ideal"};
  return systems;
}

std::vector<std::vector<int>> glet_splits(const std::vector<int>& sizes) {
  std::vector<std::vector<int>> out{{100}};
  auto sorted = sizes;
  std::ranges::sort(sorted, std::greater<>());
  for (const int p : sorted)
    if (p > 50 && p < 100 && std::ranges::find(sizes, 100 - p) != sizes.end()) out.push_back({100 - p, p});
  if (std::ranges::find(sizes, 50) != sizes.end()) out.push_back({50, 50});
  return out;
}

long long for_each_fixed_layout(int gpus, const std::vector<std::vector<int>>& splits,
                                const std::function<bool(const GletLayout&)>& visit) {
  if (gpus < 1 || splits.empty()) return 0;
  std::vector<std::size_t> digit(static_cast<std::size_t>(gpus), 0);
  GletLayout layout;
  layout.gpus.resize(static_cast<std::size_t>(gpus));
  long long visited = 0;
  while (true) {
    for (std::size_t g = 0; g < digit.size(); ++g) {
      auto& glets = layout.gpus[g].glets;
      glets.clear();
      for (const int s : splits[digit[g]])
        glets.push_back(Glet{s, {}, {}, {}});
    }
    ++visited;
    if (visit(layout)) return visited;
    std::size_t g = 0;
    while (g < digit.size() && ++digit[g] == splits.size())
      digit[g++] = 0;
    if (g == digit.size()) return visited;
  }
}

GletPlan plan_glet_system(const std::string& system, const std::vector<GletModel>& models,
                          const GletLatencyOptions& latency, const GletPlannerOptions& planner, int previous_gpus,
                          int gpu_limit) {
  auto lo = latency;
  auto po = planner;
  const auto needs_interference = [&] {
    if (!lo.interference)
      throw QueryError(system + " needs an interference model for " + lo.gpu +
                       " (import one, or plan with glet-noint)");
  };
  GletPlan plan;
  if (system == "glet") {
    needs_interference();
    plan = plan_glet(GletLatency(models, lo), po, previous_gpus, gpu_limit);
  } else if (system == "glet-noint") {
    lo.interference.reset();
    plan = plan_glet(GletLatency(models, lo), po, previous_gpus, gpu_limit);
  } else if (system == "sbp") {
    lo.interference.reset();
    lo.sizes = {100};
    plan = plan_glet(GletLatency(models, lo), po, previous_gpus, gpu_limit);
  } else if (system == "sbp-even") {
    lo.interference.reset();
    lo.sizes = {50};
    po.split = false;
    const GletLatency lat(models, lo);
    plan =
        scale_gpus(previous_gpus, gpu_limit, [&](int n) { return elastic_partitioning(lat, po, n, split_evenly(n)); });
  } else if (system == "greedy-bestfit") {
    lo.interference.reset();
    po.rule = PlacementRule::GreedyBestFit;
    po.temporal_sharing = false;
    plan = plan_glet(GletLatency(models, lo), po, previous_gpus, gpu_limit);
  } else if (system == "ideal") {
    needs_interference();
    po.split = false;
    const GletLatency lat(models, lo);
    const auto splits = glet_splits(lo.sizes);
    plan = scale_gpus(previous_gpus, gpu_limit, [&](int n) {
      GletPlan found;
      found.feasible = false;
      long long tried = for_each_fixed_layout(n, splits, [&](const GletLayout& start) {
        auto p = elastic_partitioning(lat, po, n, start);
        if (p.feasible || found.message.empty()) found = std::move(p);
        return found.feasible;
      });
      if (!found.feasible)
        found.message = "no fixed layout of " + std::to_string(n) + " GPU(s) fits (" + std::to_string(tried) +
                        " tried; first failure: " + found.message + ")";
      return found;
    });
  } else {
    std::string known;
    for (const auto& s : glet_systems())
      known += (known.empty() ? "" : ", ") + s;
    throw QueryError("unknown glet system '" + system + "' (known: " + known + ")");
  }
  plan.system = system;
  return plan;
}

}  // namespace servescope::engine
