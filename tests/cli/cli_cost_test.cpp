// servescope-cli end to end, cost planning: the cost planners (Piccolo, Harpagon and their baselines) on
// the built-in application, what they refuse and why, the seed and duration of their simulator checks,
// GPU types that carry only a price, and a kept plan run through the simulator.
#include <gtest/gtest.h>
#include <map>
#include <nlohmann/json.hpp>

#include "tests/cli/cli_test_support.h"
#include "tests/support/test_support.h"

using servescope::test::cli;
using servescope::test::TempDir;

TEST(Cli, CostPlannersPlanTheBuiltInApplication) {
  TempDir tmp;
  std::map<std::string, double> cost;
  for (const std::string system :
       {"piccolo", "harpagon", "nexus", "scrooge", "inferline", "clipper", "bruteforce", "harpagon-nd"}) {
    const auto out = (tmp.path() / (system + ".json")).string();
    // The papers' plans (--no-verify): the brute force is their lower bound.
    const auto r = cli(
        {"--json", "plan", "-s", "builtin:projects/cost-demo.json", "--system", system, "--no-verify", "--out", out});
    ASSERT_EQ(r.status, 0) << system << ": " << r.err;
    const auto plan = nlohmann::json::parse(servescope::test::read_file(out));
    EXPECT_EQ(plan["kind"], "cost-plan");
    EXPECT_EQ(plan["system"], system);
    ASSERT_TRUE(plan["feasible"].get<bool>()) << system;
    EXPECT_LE(plan["e2e_wcl_us"].get<double>(), plan["slo_us"].get<double>());
    // Planned for the workload's rates: the formula at those rates is the plan's WCL.
    EXPECT_EQ(plan["e2e_wcl_at_rate_us"], plan["e2e_wcl_us"]) << system;
    ASSERT_EQ(plan["modules"].size(), 2u);
    EXPECT_EQ(plan["modules"][1]["rate_rps"].get<double>(), 3000);  // 1.5 objects per frame
    EXPECT_FALSE(plan["modules"][0]["tiers"].empty());
    cost[system] = plan["total_cost"].get<double>();
  }
  for (const auto& [system, c] : cost)
    EXPECT_LE(cost["bruteforce"], c * (1 + 1e-9)) << system;
  // Plan with Poisson headroom and check it in the simulator at the workload's rates.
  const auto sim = cli({"--json", "plan", "-s", "builtin:projects/cost-demo.json", "--system", "harpagon", "--burst-z",
                        "2.33", "--simulate", "20"});
  ASSERT_EQ(sim.status, 0) << sim.err;
  const auto simulated = nlohmann::json::parse(sim.out);
  EXPECT_GT(simulated["total_cost"].get<double>(), cost["harpagon"]);
  EXPECT_GT(simulated["modules"][0]["headroom_rps"].get<double>(), 0);
  EXPECT_EQ(simulated["simulation"]["arrival"], "Poisson");
  EXPECT_TRUE(simulated["verification"]["met"].get<bool>());
  EXPECT_GE(simulated["verification"]["slo_attainment"].get<double>(), 0.997);
  EXPECT_GT(simulated["simulation"]["requests"].get<double>(), 20000);
  EXPECT_GE(simulated["simulation"]["slo_attainment"].get<double>(), 0.99);
  // The formula at the workload's rates (arithmetic on the plan, no clock): on this two-module
  // chain the end-to-end figure is the sum of the modules'.
  EXPECT_NEAR(
      simulated["e2e_wcl_at_rate_us"].get<double>(),
      simulated["modules"][0]["wcl_at_rate_us"].get<double>() + simulated["modules"][1]["wcl_at_rate_us"].get<double>(),
      0.01);
  // The text says the WCL is at the planned rates and what the SLO rests on (docs/formats.md
  // "Cost plans").
  const auto text = cli({"plan", "-s", "builtin:projects/cost-demo.json", "--system", "harpagon"});
  ASSERT_EQ(text.status, 0) << text.err;
  EXPECT_NE(text.out.find("at the planned rates"), std::string::npos) << text.out;
  EXPECT_NE(text.out.find("at the workload's rates the papers' formula gives"), std::string::npos) << text.out;
  EXPECT_NE(text.out.find("the latency guarantee for bursty arrivals is the simulator check"), std::string::npos)
      << text.out;
  // A GPU type without a price, an unknown planner and a malformed price say what is wrong.
  const auto bad = cli(
      {"plan", "-s", "builtin:projects/cost-demo.json", "--system", "harpagon", "--gpu", "P4", "--price", "P4=abc"});
  EXPECT_NE(bad.status, 0);
  EXPECT_NE(bad.err.find("--price"), std::string::npos) << bad.err;
  const auto unknown = cli({"plan", "-s", "builtin:projects/cost-demo.json", "--system", "harpagon-xyz"});
  EXPECT_EQ(unknown.status, 2);
  EXPECT_NE(unknown.err.find("harpagon-xyz"), std::string::npos) << unknown.err;
}

// A module profiled only at MPS halves has nothing to run on in Harpagon's and Nexus's whole-GPU
// spaces: they refuse (exit 2) naming the module and the rule, where before they planned it as a
// free 0 ms step; Piccolo plans it.
TEST(Cli, CostPlannersRefuseAModuleTheirSpaceCannotRun) {
  TempDir tmp;
  const auto scenario = tmp.write("mps.json", R"({"schema_version": 1, "kind": "scenario", "name": "mps-only",
 "cluster": {"name": "c", "nodes": [{"name": "n", "gpu": "V100", "gpu_count": 4, "nic_up_gbps": 10, "nic_down_gbps": 10}]},
 "profiles": [
   {"name": "whole", "form": "table", "default_slo_us": 50000,
    "tables": [{"gpu": "V100", "batches": [1, 4], "latency_us": [2000, 5000]}]},
   {"name": "halves", "form": "table", "default_slo_us": 50000,
    "tables": [{"gpu": "V100", "share": "1/2", "batches": [1, 4], "latency_us": [3000, 8000]}]}],
 "applications": [{"name": "app", "slo_us": 200000, "modules": [{"id": "a", "model": "whole"},
   {"id": "b", "model": "halves"}], "edges": [["a", "b"]]}],
 "workloads": [{"name": "w", "rate_rps": 50, "targets": [{"application": "app"}]}]})");
  for (const std::string system : {"harpagon", "nexus", "inferline"}) {
    const auto r = cli({"plan", "-s", scenario, "--system", system, "--no-verify"});
    EXPECT_EQ(r.status, 2) << system << ": " << r.err;
    EXPECT_NE(r.err.find("module 'b' (model halves)"), std::string::npos) << r.err;
    EXPECT_NE(r.err.find("concurrency 1"), std::string::npos) << r.err;
  }
  const auto piccolo = cli({"--json", "plan", "-s", scenario, "--system", "piccolo", "--no-verify"});
  ASSERT_EQ(piccolo.status, 0) << piccolo.err;
  const auto plan = nlohmann::json::parse(piccolo.out);
  EXPECT_FALSE(plan["modules"][1]["tiers"].empty());
  // A price for a GPU type the scenario does not know is refused, not ignored.
  const auto unknown = cli({"plan", "-s", scenario, "--system", "piccolo", "--price", "NOPE=2"});
  EXPECT_EQ(unknown.status, 2);
  EXPECT_NE(unknown.err.find("no GPU type 'NOPE'"), std::string::npos) << unknown.err;
}

// A module with nothing to plan is told the real cause, not "no priced configuration": here a
// batch size no planned size reaches, and an MPS share beyond the planned concurrency.
TEST(Cli, CostPlanningSaysWhyAModuleHasNothingToPlan) {
  TempDir tmp;
  const auto scenario = tmp.write("odd.json", R"({"schema_version": 1, "kind": "scenario", "name": "odd",
 "cluster": {"name": "c", "nodes": [{"name": "n", "gpu": "V100", "gpu_count": 4, "nic_up_gbps": 10, "nic_down_gbps": 10}]},
 "profiles": [
   {"name": "whole", "form": "table", "default_slo_us": 50000,
    "tables": [{"gpu": "V100", "batches": [1, 4], "latency_us": [2000, 5000]}]},
   {"name": "odd", "form": "table", "default_slo_us": 50000,
    "tables": [{"gpu": "V100", "batches": [3], "latency_us": [4000]},
               {"gpu": "V100", "share": "1/8", "batches": [1, 4], "latency_us": [9000, 20000]}]}],
 "applications": [{"name": "app", "slo_us": 200000, "modules": [{"id": "a", "model": "whole"},
   {"id": "b", "model": "odd"}], "edges": [["a", "b"]]}],
 "workloads": [{"name": "w", "rate_rps": 50, "targets": [{"application": "app"}]}]})");
  const auto r = cli({"plan", "-s", scenario, "--system", "piccolo", "--no-verify", "--batches", "1,2,4"});
  EXPECT_EQ(r.status, 2) << r.err;
  EXPECT_NE(r.err.find("module 'b' (model odd) has no configuration to plan"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("profiled for batches 3–3, none of the planned batch sizes"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("concurrency 8 is beyond the planned maximum 4"), std::string::npos) << r.err;
  EXPECT_EQ(r.err.find("price"), std::string::npos) << r.err;
  // By default the planners plan every profiled size too (docs/formats.md "Cost plans"): batch 3 is
  // b's.
  const auto out = (tmp.path() / "plan.json").string();
  const auto planned = cli({"plan", "-s", scenario, "--system", "piccolo", "--no-verify", "-o", out});
  ASSERT_EQ(planned.status, 0) << planned.err;
  const auto plan = nlohmann::json::parse(servescope::test::read_file(out));
  for (const auto& tier : plan["modules"][1]["tiers"])
    EXPECT_EQ(tier["batch"], 3);
}

TEST(Cli, CostPlanChecksReportTheSeedAndDurationTheyUse) {
  TempDir tmp;
  const auto out = (tmp.path() / "plan.json").string();
  const auto r = cli({"plan", "-s", "builtin:projects/cost-demo.json", "--system", "harpagon", "--seed", "7",
                      "--simulate", "6", "-o", out});
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_NE(r.err.find("planning harpagon..."), std::string::npos) << r.err;
  EXPECT_NE(r.out.find("checked in the simulator (Poisson, 2 runs of 60 s, seeds 7–8, "), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("simulated 6 s (Poisson, seed 7): "), std::string::npos) << r.out;
  const auto plan = nlohmann::json::parse(servescope::test::read_file(out));
  EXPECT_EQ(plan["verification"]["seed"], 7);
  EXPECT_EQ(plan["verification"]["runs"], 2);
  EXPECT_EQ(plan["verification"]["duration_s"], 60.0);
  EXPECT_GT(plan["verification"]["requests"].get<double>(), 0);
  EXPECT_EQ(plan["simulation"]["seed"], 7);
  EXPECT_EQ(plan["simulation"]["duration_s"], 6.0);
}

// A scenario's GPU types may carry only a price (docs/formats.md "GPU catalog"). The cost planners
// (and the simulator that checks their plan) need nothing else; planners that read profiles (PPipe)
// do not need datasheet figures either; `info` shows what is unknown as "—" (null in JSON).
TEST(Cli, GpuTypesWithOnlyAPricePlanCosts) {
  TempDir tmp;
  const std::string types = R"("gpu_types": [{"id": "Big", "price_per_hour": 3}, {"id": "Small", "price_per_hour": 1}],
 "cluster": {"name": "c", "nodes": [{"name": "b", "gpu": "Big", "gpu_count": 4, "nic_up_gbps": 10, "nic_down_gbps": 10},
   {"name": "s", "gpu": "Small", "gpu_count": 4, "nic_up_gbps": 10, "nic_down_gbps": 10}]},)";
  const auto scenario =
      tmp.write("rented.json", R"({"schema_version": 1, "kind": "scenario", "name": "rented", )" + types + R"(
 "profiles": [
   {"name": "det", "form": "table", "default_slo_us": 50000,
    "tables": [{"gpu": "Big", "batches": [1, 2, 4, 8], "latency_us": [2000, 2600, 3600, 6000]},
               {"gpu": "Small", "batches": [1, 2, 4, 8], "latency_us": [5000, 8000, 14000, 26000]}]},
   {"name": "cls", "form": "table", "default_slo_us": 50000,
    "tables": [{"gpu": "Big", "batches": [1, 2, 4, 8], "latency_us": [1000, 1300, 1900, 3200]},
               {"gpu": "Small", "batches": [1, 2, 4, 8], "latency_us": [2500, 4000, 7000, 13000]}]}],
 "applications": [{"name": "app", "slo_us": 100000, "modules": [{"id": "a", "model": "det"},
   {"id": "b", "model": "cls"}], "edges": [["a", "b"]]}],
 "workloads": [{"name": "w", "rate_rps": 200, "targets": [{"application": "app"}]}]})");
  EXPECT_EQ(cli({"validate", scenario}).status, 0);
  for (const std::string system : {"harpagon", "piccolo"}) {
    const auto r = cli({"--json", "plan", "-s", scenario, "--system", system});
    ASSERT_EQ(r.status, 0) << system << ": " << r.err;
    const auto plan = nlohmann::json::parse(r.out);
    EXPECT_EQ(plan["kind"], "cost-plan");
    EXPECT_TRUE(plan["feasible"].get<bool>()) << system;
    ASSERT_FALSE(plan["modules"][0]["tiers"].empty());
    EXPECT_EQ(plan["modules"][0]["tiers"][0]["gpu"], "Big");
    EXPECT_EQ(plan["modules"][0]["tiers"][0]["price"], 3.0);
    EXPECT_TRUE(plan["verification"]["met"].get<bool>()) << system;
  }

  const auto blocks =
      tmp.write("blocks.json", R"({"schema_version": 1, "kind": "scenario", "name": "blocks", )" + types + R"(
 "profiles": [{"name": "blk", "form": "blocks", "blocks": 2, "boundary_bytes": [4096], "default_slo_us": 50000,
   "tables": [{"gpu": "Big", "batches": [1, 2, 4], "latency_us": [[1000, 1500, 2500], [800, 1200, 2000]]},
              {"gpu": "Small", "batches": [1, 2, 4], "latency_us": [[3000, 5000, 9000], [2500, 4000, 7000]]}]}],
 "workloads": [{"name": "w", "rate_rps": 100, "targets": [{"model": "blk"}]}]})");
  const auto ppipe = cli({"plan", "-s", blocks, "--system", "ppipe"});
  EXPECT_EQ(ppipe.status, 0) << ppipe.err;

  const auto catalog = tmp.write("catalog.json", R"({"schema_version": 1, "kind": "gpu-catalog", "name": "c",
 "gpus": [{"id": "Rented", "price_per_hour": 1.5}, {"id": "Lab", "name": "Lab GPU", "sm_count": 40, "mps": true}]})");
  const auto info = cli({"info", catalog});
  ASSERT_EQ(info.status, 0) << info.err;
  EXPECT_NE(info.out.find("— SMs, — GiB, 1.5 per hour"), std::string::npos) << info.out;
  EXPECT_NE(info.out.find("40 SMs, — GiB, MPS"), std::string::npos) << info.out;
  const auto json = cli({"--json", "info", catalog});
  ASSERT_EQ(json.status, 0) << json.err;
  const auto gpus = nlohmann::json::parse(json.out)["gpus"];
  EXPECT_TRUE(gpus[0]["sm_count"].is_null());
  EXPECT_TRUE(gpus[0]["memory_gib"].is_null());
  EXPECT_EQ(gpus[0]["price_per_hour"], 1.5);
  EXPECT_EQ(gpus[1]["sm_count"], 40);
}

// A kept cost plan runs like a pipeline or gpu-let plan: `simulate --plan` serves it on the
// "cost" data plane (its machines as the run's GPUs), a load sweep scales it, and a system that
// runs another kind of plan is refused.
TEST(Cli, SimulateRunsAKeptCostPlan) {
  TempDir tmp;
  const auto plan = (tmp.path() / "harpagon.json").string();
  ASSERT_EQ(cli({"plan", "-s", "builtin:projects/cost-demo.json", "--system", "harpagon", "--out", plan}).status, 0);
  const auto run =
      cli({"--json", "simulate", "-s", "builtin:projects/cost-demo.json", "--plan", plan, "-d", "10", "--warmup", "2"});
  ASSERT_EQ(run.status, 0) << run.err;
  const auto result = nlohmann::json::parse(run.out);
  EXPECT_EQ(result["system"], "cost");
  EXPECT_GE(result["summary"]["slo_attainment"].get<double>(), 0.99);
  EXPECT_GT(result["summary"]["completed"].get<double>(), 10000);
  const auto wrong = cli({"simulate", "-s", "builtin:projects/cost-demo.json", "--plan", plan, "--system", "glet"});
  EXPECT_EQ(wrong.status, 2);
  EXPECT_NE(wrong.err.find("a cost-plan runs on the cost data plane, not glet"), std::string::npos) << wrong.err;
}
