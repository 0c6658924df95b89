#include "engine/cost/cost_scenario.h"

#include <algorithm>

#include "model/core/error.h"

namespace servescope::engine {

namespace {

// Rate per application targeted by the selected workloads.
std::map<std::string, double> application_rates(const Scenario& scenario, const CostScenarioOptions& options) {
  std::map<std::string, double> app_rate;
  for (const auto* w : scenario.select_workloads(options.workloads)) {
    const auto shares = w->shares();
    for (std::size_t t = 0; t < w->targets.size(); ++t)
      if (w->targets[t].kind == TargetKind::Application) app_rate[w->targets[t].name] += w->rate_rps * shares[t];
  }
  return app_rate;
}

std::string chosen_application(const std::map<std::string, double>& app_rate, const CostScenarioOptions& options) {
  if (!options.application.empty()) return options.application;
  if (app_rate.size() != 1)
    throw QueryError(app_rate.empty() ? "no workload targets an application: cost planners plan one application"
                                      : "the workloads target several applications: name one with --app");
  return app_rate.begin()->first;
}

}  // namespace

std::vector<int> planned_batches(const CostScenarioOptions& options, std::vector<int> profiled) {
  if (!options.batches.empty()) return options.batches;
  for (int b = 1; b <= 64; b *= 2)
    profiled.push_back(b);
  std::ranges::sort(profiled);
  profiled.erase(std::ranges::unique(profiled).begin(), profiled.end());
  return profiled;
}

ArrivalProcess application_arrivals(const Scenario& scenario, const CostScenarioOptions& options) {
  const auto name = chosen_application(application_rates(scenario, options), options);
  for (const auto* w : scenario.select_workloads(options.workloads))
    for (const auto& t : w->targets)
      if (t.kind == TargetKind::Application && t.name == name) return w->arrivals;
  throw QueryError("no selected workload targets application '" + name + "'");
}

CostProblem cost_problem_from_scenario(const Scenario& scenario, const CostScenarioOptions& options) {
  // The application and the rate the selected workloads send it.
  auto app_rate = application_rates(scenario, options);
  const std::string name = chosen_application(app_rate, options);
  const Application* app = scenario.find_application(name);
  if (!app) throw QueryError("no application named '" + name + "' in the scenario");
  if (!app_rate.contains(name)) throw QueryError("no selected workload targets application '" + name + "'");
  const double rate = app_rate[name];

  const auto catalog = scenario.catalog();
  // A price for a type the scenario does not know would be ignored without a word.
  std::map<std::string, double> prices;
  for (const auto& [type, value] : options.prices) {
    const auto* known = catalog.find(type);
    if (!known)
      throw QueryError("a price for '" + type + "': no GPU type '" + type + "' in the scenario's catalog (" +
                       catalog.known_ids() + ")");
    prices[known->id] = value;
  }
  const auto price_of = [&](const std::string& gpu) {
    if (const auto it = prices.find(gpu); it != prices.end()) return it->second;
    const auto* spec = catalog.find(gpu);
    return spec ? spec->price_per_hour : 0.0;
  };
  CostProblem p;
  p.name = app->name;
  p.slo = app->slo;
  std::vector<std::string> unpriced;
  for (const auto& m : app->modules) {
    CostModule cm;
    cm.id = m.id;
    if (m.kind == ModuleKind::Cpu) {
      cm.fixed_latency = m.cpu_latency;
      p.modules.push_back(std::move(cm));
      continue;
    }
    cm.model = m.model;
    cm.rate_rps = rate * m.rate_scale;
    const auto& profile = scenario.profiles.get(m.model);
    // What each profiled ⟨GPU, share⟩ lacked, so that a module left with nothing is told why
    // ("no priced configuration" was said for a share or batch out of range too).
    std::vector<std::string> skipped;
    for (const auto& [gpu, share] : profile.configurations()) {
      const auto divisor = share.mps_divisor();
      const std::string what = gpu + " at " + share.to_string();
      if (!divisor) {
        skipped.push_back(what + ": a share of " + share.to_string() + " is no MPS divisor 1/s");
        continue;
      }
      if (*divisor > options.max_concurrency) {
        skipped.push_back(what + ": concurrency " + std::to_string(*divisor) + " is beyond the planned maximum " +
                          std::to_string(options.max_concurrency));
        continue;
      }
      if (!options.gpus.empty() && std::ranges::find(options.gpus, gpu) == options.gpus.end()) {
        skipped.push_back(what + ": not among the GPU types asked for (--gpu)");
        continue;
      }
      const double price = price_of(gpu);
      if (!(price > 0)) {
        if (std::ranges::find(unpriced, gpu) == unpriced.end()) unpriced.push_back(gpu);
        skipped.push_back(what + ": " + gpu + " has no price");
        continue;
      }
      const int lo = std::max(1, profile.min_batch(gpu, share)), hi = profile.max_batch(gpu, share);
      const auto before = cm.configs.size();
      for (const int b : planned_batches(options, profile.profiled_batches(gpu, share)))
        if (b >= lo && b <= hi)
          cm.configs.push_back(
              make_cost_config(gpu, b, *divisor, profile.latency({gpu, share, b, std::nullopt}), price));
      if (cm.configs.size() == before)
        skipped.push_back(what + ": profiled for batches " + std::to_string(lo) + "–" + std::to_string(hi) +
                          ", none of the planned batch sizes");
    }
    if (cm.configs.empty()) {
      std::string why = "module '" + m.id + "' (model " + m.model + ") has no configuration to plan:";
      for (const auto& s : skipped)
        why += " " + s + ";";
      if (!unpriced.empty()) why += " (set price_per_hour in the scenario's gpu_types, or pass --price TYPE=VALUE)";
      throw QueryError(why);
    }
    sort_configs(cm.configs, cm.rate_rps);
    p.modules.push_back(std::move(cm));
  }
  for (const auto& e : app->edges) {
    const auto index = [&](const std::string& id) {
      const auto it = std::ranges::find(app->modules, id, &AppModule::id);
      return static_cast<std::size_t>(it - app->modules.begin());
    };
    p.edges.emplace_back(index(e.from), index(e.to));
  }
  validate(p);
  return p;
}

}  // namespace servescope::engine
