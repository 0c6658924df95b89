#include "engine/systems/cost/cost_options.h"

#include <limits>
#include <string_view>

#include "model/core/error.h"
#include "model/core/text.h"

namespace servescope::engine {
namespace {

// "T4=0.35" → (T4, 0.35); the type is checked against the scenario's catalog when it plans
// (cost_problem_from_scenario), where the catalog is known.
std::pair<std::string, double> parse_price(const std::string& text) {
  auto price = option_spec("price", "", "", OptionType::Real);
  price.min = std::numeric_limits<double>::min();  // positive
  const auto eq = text.find('=');
  try {
    if (eq == std::string::npos || eq == 0) throw QueryError("no TYPE=");
    return {text.substr(0, eq), std::get<double>(parse_option_value(price, std::string_view(text).substr(eq + 1)))};
  } catch (const QueryError&) {
    throw QueryError("expected TYPE=VALUE with a positive price, got '" + text + "'");
  }
}

}  // namespace

OptionSchema<ScenarioPlanRequest> cost_planner_options() {
  OptionSchema<ScenarioPlanRequest> o;
  using R = ScenarioPlanRequest;
  o.text("app", "Application", "Cost planners: the application to plan (default: the one targeted)",
         [](R& r) -> std::string& { return r.cost.scenario.application; })
      .show_default = false;
  o.add(
       option_spec("price", "Prices", "Cost planners: a GPU type's price, TYPE=VALUE (repeatable)",
                   OptionType::TextList),
       [](const R& r) -> OptionValue {
         std::vector<std::string> out;
         for (const auto& [type, value] : r.cost.scenario.prices)
           out.push_back(type + "=" + format_number(value));
         return out;
       },
       [](R& r, const OptionValue& v) {
         r.cost.scenario.prices.clear();
         for (const auto& text : std::get<std::vector<std::string>>(v)) {
           const auto [type, value] = parse_price(text);
           r.cost.scenario.prices[type] = value;
         }
       })
      .show_default = false;
  auto& gpu = o.add(
      option_spec("gpu", "Only GPU type", "cost planners: plan on this GPU type only", OptionType::Text),
      [](const R& r) -> OptionValue {
        return r.cost.scenario.gpus.size() == 1 ? r.cost.scenario.gpus.front() : std::string();
      },
      [](R& r, const OptionValue& v) {
        const auto& type = std::get<std::string>(v);
        r.cost.scenario.gpus = type.empty() ? std::vector<std::string>{} : std::vector<std::string>{type};
      });
  gpu.hint = OptionHint::ClusterGpuType;
  gpu.show_default = false;
  o.integer_list("batches", "Batch sizes",
                 "cost planners: allowed batch sizes (default: every profiled one and 1, 2, 4, …, 64 within each "
                 "profile's range, interpolated, each MPS share 1/s as concurrency s up to 4; Harpagon, Nexus, "
                 "InferLine and Clipper plan whole GPUs, concurrency 1, only)",
                 1, 1'000'000, [](R& r) -> std::vector<int>& { return r.cost.scenario.batches; })
      .show_default = false;
  o.real("burst-z", "Burst headroom z",
         "Cost planners: plan each module for T + z*sqrt(T*B/budget) to absorb bursts (0: with the simulator check, "
         "the queueing model sizes each module; without it, smooth streams as the papers)",
         0, 10, [](R& r) -> double& { return r.cost.burst_z; })
      .show_default = false;
  o.real("simulate", "Then simulate",
         "Cost planners: then run the plan in the simulator for this many seconds at its rates", 0, 86400,
         [](R& r) -> double& { return r.cost.simulate_s; })
      .show_default = false;
  o.integer("seed", "Seed", "Cost planners: the seed of the checks in the simulator and of the --simulate run", 0,
            9.0e15, [](R& r) -> std::uint64_t& { return r.cost.seed; });
  o.negated_flag("no-verify", "Papers' plan (no check)",
                 "Cost planners: the papers' plan for smooth streams, not checked in the simulator against the "
                 "workload's arrival process",
                 [](R& r) -> bool& { return r.cost.verify; });
  return o;
}

}  // namespace servescope::engine
