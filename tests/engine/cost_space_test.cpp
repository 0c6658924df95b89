// A DNN module that a planner's configuration space leaves nothing to run on is refused with its
// name and the rule that emptied it, never planned as a free 0 ms step. Cases: a module profiled
// only at MPS shares under concurrency-1 presets (Harpagon, its ablations, piccolo-np, InferLine,
// Nexus, Clipper), a GPU type without a profile for a module under one-type presets (Nexus,
// Clipper, *-nh), a profile that starts above batch 1 under *-nb; and random workloads with such
// modules, under every preset and ablation.
#include <gtest/gtest.h>
#include <random>

#include "engine/cost/brute_force.h"
#include "engine/cost/cost_plan_json.h"
#include "engine/cost/cost_planner.h"
#include "engine/cost/random_workload.h"
#include "tests/support/cost_plan_checker.h"

namespace servescope::engine {
namespace {

CostModule dnn(const std::string& id, double rate, std::vector<CostConfig> configs) {
  CostModule m;
  m.id = id;
  m.model = id;
  m.rate_rps = rate;
  m.configs = std::move(configs);
  sort_configs(m.configs, rate);
  return m;
}

CostConfig config(const std::string& hw, int batch, int concurrency, double ms, double price) {
  return make_cost_config(hw, batch, concurrency, Duration::from_ms(ms), price);
}

// Two modules in a chain: `a` runs anywhere, `b` as given; a loose SLO.
CostProblem chain_with(CostModule b) {
  CostProblem p;
  p.name = "app";
  p.slo = Duration::milliseconds(2000);
  p.modules = {dnn("a", 50,
                   {config("P100", 1, 1, 10, 1), config("P100", 4, 1, 25, 1), config("V100", 1, 1, 6, 1.5),
                    config("V100", 4, 1, 15, 1.5), config("P100", 2, 2, 30, 1)}),
               std::move(b)};
  p.edges = {{0, 1}};
  return p;
}

// Every DNN module of a feasible plan has machines, and the independent checker agrees.
void expect_every_module_planned(const CostProblem& problem, const CostPlan& plan, const std::string& what) {
  ASSERT_TRUE(plan.feasible) << what;
  for (std::size_t m = 0; m < problem.modules.size(); ++m) {
    if (problem.modules[m].is_fixed()) continue;
    EXPECT_GT(plan.modules[m].machines(), 0) << what << ": module " << problem.modules[m].id << " has no machines";
  }
  (void)cost_plan_to_json(plan, "random");  // names each split step's configurations
  const auto violations = test::check_cost_plan(problem, plan);
  EXPECT_TRUE(violations.empty()) << what << ": " << (violations.empty() ? "" : violations.front());
}

TEST(CostSpace, AModuleProfiledOnlyAtMpsSharesIsRefusedByConcurrencyOnePresets) {
  const auto p = chain_with(dnn("b", 50, {config("V100", 1, 2, 12, 1.5), config("V100", 4, 2, 30, 1.5)}));
  for (const std::string system : {"harpagon", "harpagon-nd", "piccolo-np", "inferline", "nexus", "clipper"}) {
    const auto plan = plan_cost(p, cost_plan_preset(system));
    EXPECT_FALSE(plan.feasible) << system;
    EXPECT_NE(plan.reason.find("'b'"), std::string::npos) << system << ": " << plan.reason;
    EXPECT_NE(plan.reason.find("concurrency"), std::string::npos) << system << ": " << plan.reason;
  }
  // Piccolo's space has MPS shares: it plans the module.
  expect_every_module_planned(p, plan_cost(p, cost_plan_preset("piccolo")), "piccolo");
}

TEST(CostSpace, OneTypePresetsSkipATypeWithoutAProfileForAModule) {
  // `b` runs only on V100: the one type must be V100 (before, P100 won with `b` free).
  const auto p = chain_with(dnn("b", 50, {config("V100", 1, 1, 8, 1.5), config("V100", 8, 1, 30, 1.5)}));
  for (const std::string system : {"nexus", "clipper", "piccolo-nh", "harpagon-nh"}) {
    const auto plan = plan_cost(p, cost_plan_preset(system));
    expect_every_module_planned(p, plan, system);
    for (std::size_t m = 0; m < plan.modules.size(); ++m)
      for (const auto& tier : plan.modules[m].tiers)
        EXPECT_EQ(plan.problem.modules[m].configs[tier.config].hw, "V100") << system;
  }
  // No type serves both: refused, naming what each type lacks.
  auto q = p;
  q.modules[0] = dnn("a", 50, {config("P100", 1, 1, 10, 1)});
  const auto plan = plan_cost(q, cost_plan_preset("nexus"));
  EXPECT_FALSE(plan.feasible);
  EXPECT_NE(plan.reason.find("P100 has no profile for module 'b'"), std::string::npos) << plan.reason;
  EXPECT_NE(plan.reason.find("V100 has no profile for module 'a'"), std::string::npos) << plan.reason;
}

TEST(CostSpace, AProfileAboveBatchOneIsRefusedByNoBatchingPresets) {
  const auto p = chain_with(dnn("b", 50, {config("V100", 4, 1, 20, 1.5), config("V100", 8, 1, 30, 1.5)}));
  const auto plan = plan_cost(p, cost_plan_preset("harpagon-nb"));
  EXPECT_FALSE(plan.feasible);
  EXPECT_NE(plan.reason.find("start at batch 4"), std::string::npos) << plan.reason;
  expect_every_module_planned(p, plan_cost(p, cost_plan_preset("harpagon")), "harpagon");
}

// Random workloads in which some modules lose their whole-GPU configurations, their batch-1
// configurations or one hardware type: no preset ever returns a plan with a DNN module left
// without machines; each plan it returns passes the independent checker.
TEST(CostSpace, NoPresetEverLeavesADnnModuleWithoutMachines) {
  std::vector<std::string> systems = cost_plan_systems();
  for (const auto& v : cost_plan_ablations())
    for (const std::string base : {"piccolo", "harpagon"})
      if (v != "q0.01") systems.push_back(base + "-" + v);  // q0.01 is slow on long SLOs
  int workloads = 0, plans = 0, refused = 0;
  std::mt19937_64 rng(21);
  for (std::uint64_t seed = 1; seed <= 60; ++seed) {
    auto p = random_cost_problem(seed);
    for (auto& m : p.modules) {
      switch (rng() % 4) {
        case 0:
          std::erase_if(m.configs, [](const CostConfig& c) { return c.concurrency == 1; });
          break;
        case 1:
          std::erase_if(m.configs, [](const CostConfig& c) { return c.batch == 1; });
          break;
        case 2:
          std::erase_if(m.configs, [](const CostConfig& c) { return c.hw == "P100"; });
          break;
        default:
          break;
      }
      sort_configs(m.configs, m.rate_rps);
    }
    ++workloads;
    for (const auto& system : systems) {
      const auto plan = plan_cost(p, cost_plan_preset(system));
      if (!plan.feasible) {
        ++refused;
        EXPECT_FALSE(plan.reason.empty()) << system << " seed " << seed;
        continue;
      }
      ++plans;
      expect_every_module_planned(p, plan, system + " seed " + std::to_string(seed));
    }
  }
  std::printf("workloads %d, plans %d, refused %d\n", workloads, plans, refused);
  EXPECT_GT(plans, 0);
}

}  // namespace
}  // namespace servescope::engine

namespace servescope::engine {
namespace {

// Under tight SLOs Piccolo and Harpagon refused workloads the brute force plans (their fastest
// start ignored padding a tier to whole machines, which collects batches faster). A planner refuses
// only when no plan exists.
TEST(CostRefusals, APlannerRefusesOnlyWhenNoPlanExists) {
  int workloads = 0, refused = 0;
  for (std::uint64_t seed = 1; seed <= 300; ++seed) {
    auto p = random_cost_problem(seed);
    p.slo = Duration::from_s(p.slo.to_s() * 0.5);  // half the generator's SLO: many are tight
    const auto optimum = plan_brute_force(p);
    ++workloads;
    for (const std::string system : {"piccolo", "harpagon"}) {
      const auto plan = plan_cost(p, cost_plan_preset(system));
      if (plan.feasible) {
        EXPECT_TRUE(test::check_cost_plan(p, plan).empty()) << system << " seed " << seed;
        (void)cost_plan_to_json(plan, "random");  // its split trace names configurations
        continue;
      }
      ++refused;
      EXPECT_FALSE(optimum.feasible) << system << " seed " << seed << " refused (" << plan.reason
                                     << ") where the brute force plans at " << optimum.e2e_wcl.to_ms() << " ms";
    }
  }
  std::printf("workloads %d, refusals %d\n", workloads, refused);
}

}  // namespace
}  // namespace servescope::engine
