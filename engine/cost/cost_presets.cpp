#include "engine/cost/cost_presets.h"

#include <algorithm>
#include <iterator>

#include "model/core/error.h"

namespace servescope::engine {
namespace {

// An ablation: a suffix and the one change it makes to its base system's options.
struct Variant {
  const char* suffix;
  void (*apply)(CostPlanOptions&);
};

const Variant kVariants[] = {
    {"2d", [](CostPlanOptions& o) { o.module.dispatch = Dispatch::RoundRobin; }},
    {"dt", [](CostPlanOptions& o) { o.module.dispatch = Dispatch::DirectThroughput; }},
    {"1c", [](CostPlanOptions& o) { o.module.max_configs = 1; }},
    {"2c", [](CostPlanOptions& o) { o.module.max_configs = 2; }},
    {"nb", [](CostPlanOptions& o) { o.batching = false; }},
    {"np", [](CostPlanOptions& o) { o.spatial = false; }},
    {"nh", [](CostPlanOptions& o) { o.hardware = HardwareChoice::BestSingle; }},
    {"nhc", [](CostPlanOptions& o) { o.hardware = HardwareChoice::Cheapest; }},
    {"nhe", [](CostPlanOptions& o) { o.hardware = HardwareChoice::Priciest; }},
    {"nd", [](CostPlanOptions& o) { o.module.dummy = DummyMode::Off; }},
    {"0re", [](CostPlanOptions& o) { o.reassign = ReassignMode::None; }},
    {"1re", [](CostPlanOptions& o) { o.reassign = ReassignMode::One; }},
    {"tb", [](CostPlanOptions& o) { o.split = SplitMethod::Throughput; }},
    {"q0.1",
     [](CostPlanOptions& o) {
       o.split = SplitMethod::Quantized;
       o.quantum = Duration::milliseconds(100);
     }},
    {"q0.01",
     [](CostPlanOptions& o) {
       o.split = SplitMethod::Quantized;
       o.quantum = Duration::milliseconds(10);
     }},
    {"nnm", [](CostPlanOptions& o) { o.node_merger = false; }},
    {"ncd", [](CostPlanOptions& o) { o.cost_direct_rounds = 0; }},
    {"fluid", [](CostPlanOptions& o) { o.split_cost = SplitCostMode::Fluid; }},
    {"alg1", [](CostPlanOptions& o) { o.module.exact = false; }},
    {"paper", [](CostPlanOptions& o) { o = as_published(std::move(o)); }},
};

}  // namespace

std::vector<std::string> cost_plan_systems() {
  return {"piccolo", "harpagon", "nexus", "scrooge", "inferline", "clipper"};
}

std::vector<std::string> cost_plan_ablations() {
  std::vector<std::string> out;
  for (const auto& v : kVariants)
    out.emplace_back(v.suffix);
  return out;
}

CostPlanOptions as_published(CostPlanOptions options) {
  options.pair_exchange = false;
  options.module.each_alone = false;
  options.module.exact = false;
  return options;
}

CostPlanOptions cost_plan_preset(std::string_view system) {
  const auto dash = system.find('-');
  const std::string base(system.substr(0, dash));
  CostPlanOptions o;
  o.system = std::string(system);
  if (base == "harpagon") {
    // Harpagon digest §5 "Recommended": scheduled LC, fallback, local dummy, full reassignment,
    // node merger and cost-direct (R = 3); no spatial multiplexing in its configuration space.
    // Our pairwise exchange and one-configuration plans beyond the paper (-paper: without).
    o.spatial = false;
    o.pair_exchange = true;
    o.module.each_alone = true;
    o.module.exact = true;
  } else if (base == "piccolo") {
    // Piccolo §3.5: fluid LC with budgets stretched to the SLO, both dummy formulas, reassignment.
    o.split_cost = SplitCostMode::Fluid;
    o.stretch_budgets = true;
    o.module.dummy = DummyMode::Both;
    o.node_merger = false;
    o.cost_direct_rounds = 0;
    o.pair_exchange = true;  // ours beyond the paper, as for Harpagon (-paper: without)
    o.module.each_alone = true;
    o.module.exact = true;
  } else if (base == "nexus" || base == "scrooge" || base == "inferline" || base == "clipper") {
    o.module.dummy = DummyMode::Off;
    o.reassign = ReassignMode::None;
    o.node_merger = false;
    o.cost_direct_rounds = 0;
    o.spatial = false;
    if (base == "nexus") {  // quantized split, round robin, two configurations, one hardware type
      o.module.dispatch = Dispatch::RoundRobin;
      o.module.max_configs = 2;
      o.split = SplitMethod::Quantized;
      o.hardware = HardwareChoice::BestSingle;
    } else if (base == "scrooge") {  // Scrooge's d + b/t, two configurations, throughput split
      o.module.dispatch = Dispatch::DirectThroughput;
      o.module.max_configs = 2;
      o.split = SplitMethod::Throughput;
      o.spatial = true;
    } else if (base == "inferline") {
      o.module.dispatch = Dispatch::RoundRobin;
      o.module.max_configs = 1;
      o.split = SplitMethod::Throughput;
    } else {  // Clipper: even split on one hardware type
      o.module.dispatch = Dispatch::RoundRobin;
      o.module.max_configs = 1;
      o.split = SplitMethod::Even;
      o.hardware = HardwareChoice::BestSingle;
    }
  } else {
    std::string names;
    for (const auto& s : cost_plan_systems())
      names += (names.empty() ? "" : ", ") + s;
    throw QueryError("unknown cost planner '" + std::string(system) + "' (known: " + names +
                     ", and piccolo-/harpagon- ablations)");
  }
  if (dash != std::string_view::npos) {
    const auto suffix = system.substr(dash + 1);
    const auto v = std::ranges::find_if(kVariants, [&](const Variant& x) { return suffix == x.suffix; });
    if (v == std::end(kVariants) || (base != "piccolo" && base != "harpagon")) {
      std::string names;
      for (const auto& s : cost_plan_ablations())
        names += (names.empty() ? "" : ", ") + s;
      throw QueryError("unknown cost-planner variant '" + std::string(system) +
                       "': ablations are piccolo-V or harpagon-V with V one of " + names);
    }
    v->apply(o);
  }
  return o;
}

bool is_cost_plan_system(std::string_view system) {
  try {
    cost_plan_preset(system);
    return true;
  } catch (const QueryError&) {
    return false;
  }
}

}  // namespace servescope::engine
