// servescope-cli end to end, pooled pipelines: plan writes a pipeline plan (PPipe, NP) that simulate and
// sweep run, estimate writes block profiles (and the committed estimated zoo is what it writes), and the
// built-in PPipe demo pipelines P4s into V100s.
#include <algorithm>
#include <gtest/gtest.h>
#include <map>
#include <nlohmann/json.hpp>

#include "engine/analysis/prediction_report.h"
#include "model/io/json_cursor.h"
#include "tests/cli/cli_test_support.h"
#include "tests/support/pipeline_fixture.h"
#include "tests/support/test_support.h"

using servescope::test::cli;
using servescope::test::TempDir;

TEST(Cli, PlanWritesAPipelinePlanThatReadsBack) {
  TempDir dir;
  const auto scenario = dir.write("pipeline.json", servescope::test::kPipelineScenarioJson);
  const auto out = (dir.path() / "plan.json").string();
  const auto r =
      cli({"plan", "-s", scenario, "-w", "seg-poisson", "--system", "ppipe", "--partitions", "2", "-o", out});
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_NE(r.out.find("ppipe: "), std::string::npos) << r.out;
  const auto plan = nlohmann::json::parse(servescope::test::read_file(out));
  EXPECT_EQ(plan["kind"], "pipeline-plan");
  EXPECT_EQ(plan["system"], "ppipe");
  ASSERT_EQ(plan["models"].size(), 1u);
  EXPECT_GT(plan["models"][0]["throughput_rps"].get<double>(), 0);
  // The whole model misses the planning SLO on a P4, so a P4 only ever runs part of it.
  bool p4_used = false;
  for (const auto& p : plan["pipelines"])
    for (const auto& d : p["partitions"])
      if (d["gpu"] == "P4") {
        p4_used = true;
        EXPECT_GT(p["partitions"].size(), 1u) << p.dump();
      }
  EXPECT_TRUE(p4_used) << plan.dump(1);

  // NP cannot use the P4s at all; the plan says so and still serves from the V100s.
  const auto np = cli({"--json", "plan", "-s", scenario, "-w", "seg-poisson", "--system", "np"});
  ASSERT_EQ(np.status, 0) << np.err;
  const auto np_plan = nlohmann::json::parse(np.out);
  EXPECT_LT(np_plan["models"][0]["throughput_rps"].get<double>(), plan["models"][0]["throughput_rps"].get<double>());

  const auto bad = cli({"plan", "-s", scenario, "--system", "clockwork"});  // a data plane, not a planner
  EXPECT_EQ(bad.status, 2);
  EXPECT_NE(bad.err.find("clockwork"), std::string::npos) << bad.err;
  // A cost planner needs an application to plan, and says so.
  const auto no_app = cli({"plan", "-s", scenario, "--system", "clipper"});
  EXPECT_EQ(no_app.status, 2);
  EXPECT_NE(no_app.err.find("no workload targets an application"), std::string::npos) << no_app.err;
}

TEST(Cli, SimulateAndSweepRunAPipelinePlan) {
  TempDir dir;
  const auto scenario = dir.write("pipeline.json", servescope::test::kPipelineScenarioJson);
  const auto plan = (dir.path() / "plan.json").string();
  ASSERT_EQ(cli({"plan", "-s", scenario, "-w", "seg-poisson", "-o", plan}).status, 0);

  const auto run_file = (dir.path() / "run.json").string();
  const auto sim = cli({"simulate", "-s", scenario, "-w", "seg-poisson", "--plan", plan, "--load-factor", "0.5", "-d",
                        "5", "--warmup", "1", "--out", run_file});
  ASSERT_EQ(sim.status, 0) << sim.err;
  const auto run = nlohmann::json::parse(servescope::test::read_file(run_file));
  EXPECT_EQ(run["system"], "reservation");  // the default data plane for a plan
  EXPECT_EQ(run["pipeline"]["plan_system"], "ppipe");
  EXPECT_GT(run["pipeline"]["dispatches"].get<int>(), 0);
  EXPECT_GT(run["gpus"]["busy_by_type"]["P4"].get<double>(), 0.0);
  EXPECT_GE(run["summary"]["slo_attainment"].get<double>(), 0.99);

  const auto sweep_file = (dir.path() / "sweep.json").string();
  const auto sweep = cli({"sweep", "-s", scenario, "-w", "seg-poisson", "--plan", plan, "--system", "reactive", "-d",
                          "5", "--from", "0.4", "--to", "0.6", "--step", "0.1", "-o", sweep_file});
  ASSERT_EQ(sweep.status, 0) << sweep.err;
  EXPECT_NE(sweep.out.find("max load factor 0.60"), std::string::npos) << sweep.out;
  const auto s = nlohmann::json::parse(servescope::test::read_file(sweep_file));
  EXPECT_EQ(s["kind"], "load-sweep");
  EXPECT_EQ(s["points"].size(), 3u);
  EXPECT_DOUBLE_EQ(s["max_load_factor"].get<double>(), 0.6);

  // A Symphony-family system cannot run a plan, and a pipeline data plane needs one.
  const auto wrong = cli({"simulate", "-s", scenario, "-w", "seg-poisson", "--plan", plan, "--system", "symphony"});
  EXPECT_EQ(wrong.status, 2);
  EXPECT_NE(wrong.err.find("--plan"), std::string::npos) << wrong.err;
  const auto missing = cli({"simulate", "-s", scenario, "-w", "seg-poisson", "--system", "reservation"});
  EXPECT_EQ(missing.status, 2);
  EXPECT_NE(missing.err.find("servescope-cli plan"), std::string::npos) << missing.err;
}

TEST(Cli, EstimateWritesBlockProfilesAndNamesWhatIsWrong) {
  const auto list = cli({"estimate", "--list"});
  ASSERT_EQ(list.status, 0) << list.err;
  EXPECT_NE(list.out.find("fcn_resnet50"), std::string::npos) << list.out;
  const auto json_list = cli({"--json", "estimate", "--list"});
  ASSERT_EQ(json_list.status, 0) << json_list.err;
  EXPECT_EQ(nlohmann::json::parse(json_list.out)[0]["id"], "resnet50");

  TempDir dir;
  const auto out = (dir.path() / "estimated.json").string();
  const auto r = cli({"estimate", "--arch", "resnet50,mobilenet_v2", "--gpus", "V100,P4", "--blocks", "8", "-o", out});
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_NE(r.out.find("wrote " + out), std::string::npos) << r.out;
  EXPECT_EQ(cli({"validate", out}).status, 0);
  const auto set = nlohmann::json::parse(servescope::test::read_file(out));
  ASSERT_EQ(set["models"].size(), 2u);
  EXPECT_EQ(set["models"][0]["blocks"], 8);
  EXPECT_EQ(set["models"][0]["boundary_bytes"].size(), 7u);
  EXPECT_EQ(set["models"][0]["tables"].size(), 5u);  // V100 at 1, 1/2, 1/3, 1/4; P4 whole

  struct Case {
    std::vector<std::string> args;
    std::string expected;
  };
  const std::vector<Case> cases = {
      {{"estimate", "--arch", "alexnet", "--gpus", "V100"},
       "unknown architecture 'alexnet' (known: resnet50, resnet101, vgg16, mobilenet_v2, fcn_resnet50"},
      {{"estimate", "--arch", "vgg16", "--gpus", "V100,K80"}, "unknown GPU type 'K80' (known: P4, T4, L4, V100"},
      {{"estimate", "--arch", "vgg16", "--gpus", "V100", "--reference-gpu", "X1"},
       "unknown reference GPU type 'X1' (known: P4"},
      {{"estimate", "--arch", "vgg16"}, "choose GPU types with --gpus"},
      {{"estimate", "--gpus", "V100"}, "choose architectures with --arch"},
      {{"estimate", "--arch", "vgg16", "--gpus", "V100", "--blocks", "30"}, "cannot cut 21 layers into 30 blocks"},
      {{"estimate", "--arch", "vgg16", "--gpus", "V100", "--precision", "int8"}, "--precision"},
  };
  for (const auto& c : cases) {
    const auto bad = cli(c.args);
    EXPECT_EQ(bad.status, 2) << c.expected;
    EXPECT_NE(bad.err.find(c.expected), std::string::npos) << bad.err;
  }
}

TEST(Cli, CommittedEstimatedZooIsWhatEstimateWrites) {
  // The demo's profiles are generated, never edited: regenerate them with this command when the
  // estimator changes (the scenario description quotes it).
  TempDir dir;
  const auto out = (dir.path() / "zoo.json").string();
  const auto r = cli({"estimate", "--arch", "vgg16,resnet101", "--gpus", "V100,P4,L4,T4", "--precision", "fp32",
                      "--slo-multiplier", "4", "-o", out});
  ASSERT_EQ(r.status, 0) << r.err;
  const auto fresh = nlohmann::json::parse(servescope::test::read_file(out));
  const auto committed = nlohmann::json::parse(
      servescope::test::read_file(std::string(SERVESCOPE_RESOURCES_DIR) + "/zoo/ppipe-estimated.json"));
  EXPECT_EQ(fresh, committed) << "resources/zoo/ppipe-estimated.json is stale; regenerate it with the command above";
}

TEST(Cli, PpipeDemoPipelinesP4sIntoV100s) {
  TempDir dir;
  const auto plan_file = (dir.path() / "plan.json").string();
  const auto r = cli({"plan", "--system", "ppipe", "--scenario", "builtin:projects/ppipe-demo.json", "-o", plan_file});
  ASSERT_EQ(r.status, 0) << r.err;
  const auto plan = nlohmann::json::parse(servescope::test::read_file(plan_file));
  ASSERT_EQ(plan["models"].size(), 2u);
  // PPipe's point: a pool of low-class P4s runs the early layers of a model and hands them to
  // a high-class V100, because a P4 alone misses the SLO.
  bool p4_then_v100 = false;
  for (const auto& p : plan["pipelines"]) {
    const auto& parts = p["partitions"];
    for (std::size_t d = 0; d + 1 < parts.size(); ++d)
      p4_then_v100 |= parts[d]["gpu"] == "P4" && parts[d + 1]["gpu"] == "V100";
  }
  EXPECT_TRUE(p4_then_v100) << plan.dump(1);
  const auto np = cli({"--json", "plan", "--system", "np", "--scenario", "builtin:projects/ppipe-demo.json"});
  ASSERT_EQ(np.status, 0) << np.err;
  EXPECT_LT(nlohmann::json::parse(np.out)["total_throughput_rps"].get<double>(),
            plan["total_throughput_rps"].get<double>());

  const auto run_file = (dir.path() / "run.json").string();
  const auto sim = cli({"simulate", "-s", "builtin:projects/ppipe-demo.json", "--plan", plan_file, "--load-factor",
                        "0.5", "-d", "5", "--warmup", "1", "-o", run_file});
  ASSERT_EQ(sim.status, 0) << sim.err;
  const auto run = nlohmann::json::parse(servescope::test::read_file(run_file));
  EXPECT_GE(run["summary"]["slo_attainment"].get<double>(), 0.99);
  EXPECT_GT(run["gpus"]["busy_by_type"]["P4"].get<double>(), 0.2);
}

// Calibrating on a simulated run of the scenario's own profiles moves nothing, and the calibrated
// profiles re-predict the run exactly (`simulate --execution-profiles`): the invariants of
// calibration that hold on any machine (the real-compute figures are bench/live/fidelity.py's).
TEST(Cli, CalibrateOnARunOfItsOwnProfilesChangesNothingAndRepredictsIt) {
  TempDir dir;
  const auto scenario = dir.write("pipeline.json", servescope::test::kPipelineScenarioJson);
  const auto plan = (dir.path() / "plan.json").string();
  ASSERT_EQ(cli({"plan", "-s", scenario, "-w", "seg-poisson", "-o", plan}).status, 0);
  const auto timeline = (dir.path() / "timeline.json").string();
  const std::vector<std::string> run_args = {"-s", scenario, "-w",       "seg-poisson", "--plan", plan,
                                             "-d", "5",      "--warmup", "1",           "--seed", "7"};
  auto args = std::vector<std::string>{"--json", "simulate", "--load-factor", "0.6"};
  args.insert(args.end(), run_args.begin(), run_args.end());
  auto with_timeline = args;
  with_timeline.insert(with_timeline.end(), {"--timeline", timeline});
  const auto sim = cli(with_timeline);
  ASSERT_EQ(sim.status, 0) << sim.err;

  const auto calibrated = (dir.path() / "calibrated.json").string();
  const auto cal_scenario = (dir.path() / "calibrated-scenario.json").string();
  auto cal_args = std::vector<std::string>{"--json", "calibrate", timeline};
  cal_args.insert(cal_args.end(), run_args.begin(), run_args.end());
  cal_args.insert(cal_args.end(), {"-o", calibrated, "--scenario-out", cal_scenario});
  const auto cal = cli(cal_args);
  ASSERT_EQ(cal.status, 0) << cal.err;
  const auto report = nlohmann::json::parse(cal.out);
  // Every simulated batch but each slot's first three (--skip-first) is used: counts of the
  // seeded run's timeline, the same on any machine.
  std::map<int, int> per_slot;
  const auto spans = nlohmann::json::parse(servescope::test::read_file(timeline))["spans"];
  for (const auto& span : spans)
    ++per_slot[span[0].get<int>()];
  int skipped = 0, total = 0;
  for (const auto& [slot, n] : per_slot) {
    skipped += std::min(n, 3);
    total += n;
  }
  ASSERT_GT(total, 100);
  EXPECT_EQ(report["batches_skipped"].get<int>(), skipped);
  EXPECT_EQ(report["batches_used"].get<int>(), total - skipped);
  ASSERT_FALSE(report["entries"].empty());
  for (const auto& e : report["entries"])
    if (e["refit"].get<bool>()) {
      EXPECT_EQ(e["after_p50_us"], e["before_p50_us"]) << e.dump();
    }
  for (const auto& k : report["contention"])
    if (k["fitted"].get<bool>()) {
      EXPECT_DOUBLE_EQ(k["after"].get<double>(), 1.0) << k.dump();
    }

  auto again = args;
  again.insert(again.end(), {"--execution-profiles", calibrated});
  const auto repredicted = cli(again);
  ASSERT_EQ(repredicted.status, 0) << repredicted.err;
  const auto before = nlohmann::json::parse(sim.out), after = nlohmann::json::parse(repredicted.out);
  EXPECT_EQ(after["config"]["execution_profiles"], calibrated);
  EXPECT_EQ(after["summary"]["on_time"], before["summary"]["on_time"]);
  EXPECT_EQ(after["summary"]["dropped"], before["summary"]["dropped"]);
  // The scenario written beside them plans and runs on the calibrated profiles.
  auto on_calibrated = args;
  on_calibrated[5] = cal_scenario;
  EXPECT_EQ(cli(on_calibrated).status, 0);

  // A run of other slots is refused, naming the slot.
  const auto np_plan = (dir.path() / "np.json").string();
  ASSERT_EQ(cli({"plan", "-s", scenario, "-w", "seg-poisson", "--system", "np", "-o", np_plan}).status, 0);
  const auto other = cli({"calibrate", timeline, "-s", scenario, "-w", "seg-poisson", "--plan", np_plan});
  EXPECT_EQ(other.status, 2) << other.err;
  EXPECT_NE(other.err.find("slot"), std::string::npos) << other.err;
}

// `predict` on a run the simulator made itself and marked recorded live: the prediction is
// offered the load the run was (its arrivals over the time they came in), its batches take what
// the run's took, and a simulated run is refused.
TEST(Cli, PredictsARecordedRunAtTheLoadItWasOffered) {
  TempDir dir;
  const auto scenario = dir.write("pipeline.json", servescope::test::kPipelineScenarioJson);
  const auto plan = (dir.path() / "plan.json").string();
  ASSERT_EQ(cli({"plan", "-s", scenario, "-w", "seg-poisson", "-o", plan}).status, 0);
  const auto timeline = (dir.path() / "timeline.json").string();
  const std::vector<std::string> run_args = {"-s", scenario, "-w", "seg-poisson", "--plan", plan, "--runtime", "exact"};
  auto args = std::vector<std::string>{"--json",   "simulate", "--load-factor", "0.6", "-d",         "8",
                                       "--warmup", "1",        "--seed",        "7",   "--timeline", timeline};
  args.insert(args.end(), run_args.begin(), run_args.end());
  const auto sim = cli(args);
  ASSERT_EQ(sim.status, 0) << sim.err;
  auto run = nlohmann::json::parse(sim.out);
  run["timeline"] = nlohmann::json::parse(servescope::test::read_file(timeline));
  const auto simulated = dir.write("simulated.json", run.dump());
  run["subclusters"]["partition"] = "live";
  const auto recorded = dir.write("recorded.json", run.dump());

  const auto out = (dir.path() / "prediction.json").string();
  auto predict = std::vector<std::string>{"--json", "predict", recorded, "-o", out};
  predict.insert(predict.end(), run_args.begin(), run_args.end());
  const auto p = cli(predict);
  ASSERT_EQ(p.status, 0) << p.err;
  const auto report = nlohmann::json::parse(p.out);
  // The prediction is offered exactly what the record's arrival series says came in, over the
  // time it came in (engine::load_window), not the scheduler's configured rate and length.
  const std::string record_name = "recorded.json";
  const auto window = servescope::engine::load_window(servescope::JsonCursor(run, record_name));
  ASSERT_TRUE(window);
  const double load_s = window->to_s - window->from_s;
  EXPECT_DOUBLE_EQ(report["rate_rps"].get<double>(), window->arrivals / load_s);
  // The record is a seeded simulation, so nothing here depends on the machine: the prediction's
  // length is the window's, as a Duration holds it.
  EXPECT_DOUBLE_EQ(report["duration_s"].get<double>(), servescope::Duration::from_s(load_s).to_s());
  EXPECT_EQ(report["total"]["live_attainment"], run["summary"]["slo_attainment"]);
  for (const auto& d : report["differences"])
    EXPECT_EQ(d["text"].get<std::string>().find("batches took"), std::string::npos) << d.dump();
  const auto written = nlohmann::json::parse(servescope::test::read_file(out));
  EXPECT_EQ(written["kind"], "run-result");
  EXPECT_EQ(written["prediction_of"], recorded);
  EXPECT_TRUE(written.contains("timeline"));

  auto refused = std::vector<std::string>{"predict", simulated};
  refused.insert(refused.end(), run_args.begin(), run_args.end());
  const auto r = cli(refused);
  EXPECT_NE(r.status, 0);
  EXPECT_NE(r.err.find("was not recorded from a live deployment"), std::string::npos) << r.err;
  // A run of a plan, predicted without one, is told to give it.
  const auto no_plan = cli({"predict", recorded, "-s", scenario, "-w", "seg-poisson"});
  EXPECT_NE(no_plan.status, 0);
  EXPECT_NE(no_plan.err.find("served a pipeline plan: give it with --plan"), std::string::npos) << no_plan.err;
}
