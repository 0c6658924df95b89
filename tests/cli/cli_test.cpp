// servescope-cli end to end: exit statuses, messages and outputs as a user or a script sees them.
#include <unistd.h>

#include <cstdlib>
#include <gtest/gtest.h>
#include <map>
#include <nlohmann/json.hpp>
#include <sstream>
#include <sys/stat.h>
#include <sys/wait.h>

#include "tests/model/csv_fixtures.h"
#include "tests/support/glet_fixture.h"
#include "tests/support/pipeline_fixture.h"
#include "tests/support/test_support.h"

namespace fs = std::filesystem;
using servescope::test::TempDir;

namespace {

struct Run {
  int status = -1;
  std::string out, err;
};

std::string shell_quote(const std::string& s) {
  std::string q = "'";
  for (char c : s)
    q += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return q + "'";
}

Run cli(const std::vector<std::string>& args) {
  TempDir tmp;
  std::string cmd = shell_quote(SERVESCOPE_CLI);
  for (const auto& a : args)
    cmd += " " + shell_quote(a);
  cmd += " >" + shell_quote((tmp.path() / "out").string()) + " 2>" + shell_quote((tmp.path() / "err").string()) +
         " </dev/null";
  const int rc = std::system(cmd.c_str());
  Run r;
  r.status = WIFEXITED(rc) ? WEXITSTATUS(rc) : -1;
  r.out = servescope::test::read_file(tmp.path() / "out");
  r.err = servescope::test::read_file(tmp.path() / "err");
  return r;
}

std::vector<std::string> resource_files() {
  std::vector<std::string> out;
  std::stringstream ss(SERVESCOPE_RESOURCE_FILES);
  for (std::string item; std::getline(ss, item, '|');)
    out.push_back(std::string(SERVESCOPE_RESOURCES_DIR) + "/" + item);
  return out;
}

}  // namespace

TEST(Cli, ValidateAcceptsEveryResourceFile) {
  const auto files = resource_files();
  ASSERT_GE(files.size(), 10u);
  // Also every JSON file present under resources/, so a new file cannot escape the check.
  std::size_t on_disk = 0;
  for (const auto& e : fs::recursive_directory_iterator(SERVESCOPE_RESOURCES_DIR))
    if (e.path().extension() == ".json") ++on_disk;
  EXPECT_EQ(on_disk, files.size()) << "every JSON file under resources/ must be listed in SERVESCOPE_RESOURCE_FILES";
  for (const auto& f : files) {
    const auto r = cli({"validate", f});
    EXPECT_EQ(r.status, 0) << f << "\n" << r.err;
    EXPECT_NE(r.out.find(": ok ("), std::string::npos) << r.out;
  }
}

TEST(Cli, ValidateRejectsCorruptedCopiesPrecisely) {
  TempDir dir;
  const auto demo = servescope::test::read_file(std::string(SERVESCOPE_RESOURCES_DIR) + "/projects/demo.json");
  struct Case {
    std::string name, text, expected;
  };
  auto json = nlohmann::json::parse(demo);
  auto negative = json;
  negative["scenario"]["cluster"]["nodes"][0]["gpu_count"] = -8;
  auto wrong_type = json;
  wrong_type["scenario"]["workloads"][0]["rate_rps"] = "lots";
  const std::vector<Case> cases = {
      {"truncated.json", demo.substr(0, demo.size() / 2), "invalid JSON"},
      {"negative.json", negative.dump(2),
       "$.scenario.cluster.nodes[0].gpu_count: expected an integer from 1 to 64, got -8"},
      {"wrong_type.json", wrong_type.dump(2), "$.scenario.workloads[0].rate_rps: expected a number"},
      {"binary.json", std::string("\x89PNG\r\n\x1a\n", 8), "invalid JSON"},
  };
  for (const auto& c : cases) {
    const auto path = dir.write(c.name, c.text);
    const auto r = cli({"validate", path});
    EXPECT_EQ(r.status, 2) << c.name;
    EXPECT_NE(r.err.find(path), std::string::npos) << r.err;
    EXPECT_NE(r.err.find(c.expected), std::string::npos) << r.err;
  }
  // --json gives the same verdict in machine-readable form.
  const auto r = cli({"--json", "validate", dir.path() / "negative.json"});
  EXPECT_EQ(r.status, 2);
  const auto report = nlohmann::json::parse(r.out);
  EXPECT_EQ(report[0]["ok"], false);
  EXPECT_EQ(report[0]["error"]["where"], "$.scenario.cluster.nodes[0].gpu_count");
}

TEST(Cli, InfoAndDemo) {
  const auto text = cli({"info", "builtin:projects/demo.json"});
  EXPECT_EQ(text.status, 0) << text.err;
  EXPECT_NE(text.out.find("64 GPUs"), std::string::npos) << text.out;
  const auto json = cli({"--json", "info", "builtin:clusters/hc3-s.json"});
  ASSERT_EQ(json.status, 0) << json.err;
  const auto summary = nlohmann::json::parse(json.out);
  EXPECT_EQ(summary["kind"], "cluster");
  EXPECT_EQ(summary["cluster"]["gpus_by_type"]["V100"], 4);
  EXPECT_EQ(summary["cluster"]["gpus_by_type"]["P4"], 12);
  const auto demo = cli({"--json", "demo"});
  ASSERT_EQ(demo.status, 0) << demo.err;
  const auto d = nlohmann::json::parse(demo.out);
  EXPECT_EQ(d["capacity"].size(), 37u);
  const auto plain = cli({"demo"});
  EXPECT_EQ(plain.status, 0);
  EXPECT_NE(plain.out.find("ResNet50"), std::string::npos);
}

TEST(Cli, ImportWritesAValidProfilesFile) {
  TempDir dir;
  const auto csv = dir.write("ab.csv", servescope::test::kAlphaBeta);
  const auto out = (dir.path() / "profiles.json").string();
  const auto r = cli({"import", "alphabeta", csv, "--out", out});
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(cli({"validate", out}).status, 0);
  const auto nexus = dir.write("n.txt", servescope::test::kNexusProfile);
  const auto rn = cli({"import", "nexus", nexus});
  ASSERT_EQ(rn.status, 0) << rn.err;
  EXPECT_NE(rn.err.find("raised"), std::string::npos) << "the monotonicity fix is reported";
  EXPECT_EQ(nlohmann::json::parse(rn.out)["kind"], "profiles");
  // Bad input: status 2, file and line named, nothing written.
  const auto bad = dir.write("bad.csv", "model,gpu,alpha_ms,beta_ms\nm,V100,-1,2\n");
  const auto bad_out = (dir.path() / "never.json").string();
  const auto rb = cli({"import", "alphabeta", bad, "--out", bad_out});
  EXPECT_EQ(rb.status, 2);
  EXPECT_NE(rb.err.find("line 2, column 3"), std::string::npos) << rb.err;
  EXPECT_FALSE(fs::exists(bad_out));
}

TEST(Cli, UsageErrorsExitWithStatusTwo) {
  EXPECT_EQ(cli({}).status, 2);
  EXPECT_EQ(cli({"validate"}).status, 2);
  EXPECT_EQ(cli({"frobnicate"}).status, 2);
  EXPECT_EQ(cli({"import", "glet", "--gpu", "T4"}).status, 2);
  EXPECT_EQ(cli({"--help"}).status, 0);
  EXPECT_EQ(cli({"import", "ppipe", "--help"}).status, 0);
}

TEST(Cli, SimulateWritesResultsTimelineAndRequestLog) {
  TempDir dir;
  const auto out = (dir.path() / "run.json").string();
  const auto timeline = (dir.path() / "timeline.json").string();
  const auto requests = (dir.path() / "requests.csv").string();
  const auto r = cli({"simulate", "-s",         "builtin:projects/demo.json",
                      "-w",       "mixed-37",   "--system",
                      "symphony", "--rate",     "3000",
                      "-d",       "2",          "--warmup",
                      "0.5",      "--seed",     "7",
                      "--out",    out,          "--timeline",
                      timeline,   "--requests", requests});
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_NE(r.out.find("SLO"), std::string::npos) << r.out;
  const auto run = nlohmann::json::parse(servescope::test::read_file(out));
  EXPECT_EQ(run["kind"], "run-result");
  EXPECT_EQ(run["system"], "symphony");
  EXPECT_EQ(run["config"]["seed"], 7);
  EXPECT_DOUBLE_EQ(run["config"]["offered_rate_rps"].get<double>(), 3000.0);
  EXPECT_EQ(run["models"].size(), 37u);
  const auto& summary = run["summary"];
  EXPECT_GT(summary["arrivals"].get<int>(), 3000);
  EXPECT_EQ(summary["arrivals"].get<int>(),
            summary["completed"].get<int>() + summary["dropped"].get<int>() + summary["unfinished"].get<int>());
  EXPECT_GT(summary["slo_attainment"].get<double>(), 0.99);
  const auto tl = nlohmann::json::parse(servescope::test::read_file(timeline));
  EXPECT_EQ(tl["kind"], "timeline");
  EXPECT_EQ(tl["columns"].size(), tl["spans"][0].size());
  EXPECT_GT(tl["spans"].size(), 100u);
  // The timeline as a Chrome trace, headless: one complete event per batch.
  const auto trace_file = (dir.path() / "trace.json").string();
  const auto exported = cli({"export", "chrome-trace", timeline, "--out", trace_file});
  ASSERT_EQ(exported.status, 0) << exported.err;
  const auto trace = nlohmann::json::parse(servescope::test::read_file(trace_file));
  const auto batches =
      std::ranges::count_if(trace["traceEvents"], [](const auto& e) { return e.value("cat", "") == "batch"; });
  EXPECT_EQ(static_cast<std::size_t>(batches), tl["spans"].size());
  EXPECT_EQ(cli({"export", "chrome-trace", out, "--out", trace_file}).status, 2);  // a run file without a timeline
  // The run's chart curves as CSV.
  const auto csv_file = (dir.path() / "metrics.csv").string();
  ASSERT_EQ(cli({"export", "metrics-csv", out, "--out", csv_file}).status, 0);
  const auto csv = servescope::test::read_file(csv_file);
  EXPECT_EQ(csv.substr(0, csv.find('\n')), "chart,series,x,y\r");
  EXPECT_NE(csv.find("\nfraction_by_latency_ms,latency CDF,"), std::string::npos);
  EXPECT_EQ(cli({"export", "metrics-csv", timeline, "--out", csv_file}).status, 2);  // a timeline is not a run
  const auto log = servescope::test::read_file(requests);
  EXPECT_EQ(log.substr(0, log.find('\n')), "event,request,model,time_us,end_us,gpu,batch,detail");
  EXPECT_NE(log.find("\ncomplete,"), std::string::npos);

  // The same seed gives the same run.
  const auto again = (dir.path() / "again.json").string();
  ASSERT_EQ(cli({"simulate", "-s", "builtin:projects/demo.json", "-w", "mixed-37", "--rate", "3000", "-d", "2",
                 "--warmup", "0.5", "--seed", "7", "--out", again})
                .status,
            0);
  auto a = run, b = nlohmann::json::parse(servescope::test::read_file(again));
  for (const auto* key : {"simulator", "run_id", "companions"}) {  // wall-clock figures; this run's id and files
    a.erase(key);
    b.erase(key);
  }
  EXPECT_EQ(a, b);
}

TEST(Cli, SimulateRefusesWhatItCannotRunWithAReason) {
  TempDir dir;
  const auto out = (dir.path() / "never.json").string();
  // The demo's second workload targets an application DAG, which the Symphony-family planes do not
  // serve: named, it is refused with the reason; unnamed, the workloads Symphony serves are run.
  const auto app = cli({"simulate", "-s", "builtin:projects/demo.json", "-w", "traffic-bursty", "--rate", "100", "-d",
                        "1", "--warmup", "0", "--out", out});
  EXPECT_EQ(app.status, 2);
  EXPECT_NE(app.err.find("traffic-bursty"), std::string::npos) << app.err;
  EXPECT_FALSE(fs::exists(out));
  const auto unnamed =
      cli({"--json", "simulate", "-s", "builtin:projects/demo.json", "--rate", "100", "-d", "1", "--warmup", "0"});
  ASSERT_EQ(unnamed.status, 0) << unnamed.err;
  EXPECT_EQ(nlohmann::json::parse(unnamed.out)["models"].size(), 37u);
  const auto system = cli({"simulate", "-s", "builtin:projects/demo.json", "-w", "mixed-37", "--system", "triton"});
  EXPECT_EQ(system.status, 2);
  EXPECT_NE(system.err.find("unknown system 'triton'"), std::string::npos) << system.err;
  // A misspelt system is the error reported, with what was meant, not what it could not serve.
  const auto typo = cli({"simulate", "-s", "builtin:projects/demo.json", "--system", "symphonie"});
  EXPECT_EQ(typo.status, 2);
  EXPECT_NE(typo.err.find("unknown system 'symphonie'; did you mean 'symphony'?"), std::string::npos) << typo.err;
  EXPECT_EQ(cli({"simulate", "-s", "builtin:projects/demo.json", "--rate", "5", "--load-factor", "1"}).status, 2);
}

// A warm-up that covers the whole run leaves nothing to measure: refused, never "100 % attained".
TEST(Cli, AnEmptyMeasurementWindowIsRefused) {
  for (const auto& command : {"simulate", "goodput"}) {
    const auto r = cli({command, "-s", "builtin:projects/demo.json", "-w", "mixed-37", "-d", "5"});
    EXPECT_EQ(r.status, 2) << command << ": " << r.out;
    EXPECT_NE(r.err.find("the warm-up (5 s) covers the whole run (5 s)"), std::string::npos) << r.err;
    EXPECT_EQ(r.out.find("attained"), std::string::npos) << r.out;
  }
  EXPECT_EQ(cli({"simulate", "-s", "builtin:projects/demo.json", "-w", "mixed-37", "-d", "1", "--warmup", "2"}).status,
            2);
}

TEST(Cli, TyposGetASuggestionAndGlobalOptionsComeAnywhere) {
  const auto r = cli({"simulat"});
  EXPECT_EQ(r.status, 2);
  EXPECT_NE(r.err.find("did you mean 'simulate'?"), std::string::npos) << r.err;
  const auto info = cli({"info", "builtin:projects/demo.json", "--json"});
  ASSERT_EQ(info.status, 0) << info.err;
  EXPECT_EQ(nlohmann::json::parse(info.out)["kind"], "project");
}

// Outputs go through one writer: a device is written, never replaced; a full device or a
// missing folder exits 1 naming the path (a missing folder before any simulating); "-" is
// standard output, with the report moved to standard error; a symlink keeps pointing at its target.
TEST(Cli, OutputPathsAreWrittenAsWhatTheyAre) {
  TempDir dir;
  const std::vector<std::string> run{
      "simulate", "-s", "builtin:projects/demo.json", "-w", "mixed-37", "--rate", "500", "-d", "1", "--warmup", "0"};
  auto with = [&](std::vector<std::string> more) {
    auto args = run;
    args.insert(args.end(), more.begin(), more.end());
    return cli(args);
  };
  if (::access("/dev/full", W_OK) == 0) {
    const auto full = with({"-o", "/dev/full"});
    EXPECT_EQ(full.status, 1) << full.out;
    EXPECT_NE(full.err.find("/dev/full: write failed: No space left on device"), std::string::npos) << full.err;
    struct stat st {};
    ASSERT_EQ(::lstat("/dev/full", &st), 0);
    EXPECT_TRUE(S_ISCHR(st.st_mode)) << "/dev/full was replaced";
  }
  ASSERT_EQ(with({"-o", "/dev/null"}).status, 0);
  struct stat st {};
  ASSERT_EQ(::lstat("/dev/null", &st), 0);
  EXPECT_TRUE(S_ISCHR(st.st_mode)) << "/dev/null was replaced";

  const auto missing = with({"--timeline", (dir.path() / "no/such/folder/t.json").string()});
  EXPECT_EQ(missing.status, 1);
  EXPECT_NE(missing.err.find("no/such/folder/t.json: no such folder"), std::string::npos) << missing.err;

  const auto dash = with({"-o", "-"});
  ASSERT_EQ(dash.status, 0) << dash.err;
  EXPECT_EQ(nlohmann::json::parse(dash.out)["kind"], "run-result");
  EXPECT_NE(dash.err.find("SLO"), std::string::npos) << "the report goes to standard error: " << dash.err;
  EXPECT_EQ(with({"-o", "-", "--timeline", "-"}).status, 2);
  // /dev/stdout is this process's standard output (here a redirected file): written through the
  // descriptor, after what was printed before, never renamed over.
  const auto dev_stdout = with({"-o", "/dev/stdout", "--json"});
  ASSERT_EQ(dev_stdout.status, 0) << dev_stdout.err;
  EXPECT_EQ(nlohmann::json::parse(dev_stdout.out)["kind"], "run-result");
  // ... and a pipe, as in `servescope-cli simulate … -o /dev/stdout | jq`.
  std::string piped = shell_quote(SERVESCOPE_CLI);
  for (const auto& a : run)
    piped += " " + shell_quote(a);
  const auto through_pipe = dir.path() / "piped.json";
  piped += " -o /dev/stdout 2>/dev/null </dev/null | cat > " + shell_quote(through_pipe.string());
  ASSERT_EQ(std::system(piped.c_str()), 0);
  EXPECT_EQ(nlohmann::json::parse(servescope::test::read_file(through_pipe))["kind"], "run-result");

  fs::create_directories(dir.path() / "real");
  const auto target = dir.path() / "real/run.json";
  const auto link = dir.path() / "link.json";
  fs::create_symlink(target, link);
  ASSERT_EQ(with({"-o", link.string()}).status, 0);
  EXPECT_TRUE(fs::is_symlink(fs::symlink_status(link)));
  EXPECT_EQ(nlohmann::json::parse(servescope::test::read_file(target))["kind"], "run-result");
}

TEST(Cli, GoodputFindsTheSloBoundOfOneModel) {
  // ResNet50 on 8 GTX 1080 Ti at 25 ms (Table 2): the staggered bound is 5,839 req/s.
  TempDir dir;
  const auto scenario = dir.write("r50.json", R"({"schema_version": 1, "kind": "scenario", "name": "r50",
    "cluster": {"name": "8x1080Ti", "nodes": [{"name": "g", "gpu": "GTX1080Ti", "gpu_count": 1, "count": 8, "nic_up_gbps": 10, "nic_down_gbps": 10}]},
    "profiles": [{"name": "ResNet50", "form": "linear", "default_slo_us": 25000,
                  "fits": [{"gpu": "GTX1080Ti", "alpha_us": 1053, "beta_us": 5072}]}],
    "workloads": [{"name": "w", "rate_rps": 1000, "targets": [{"model": "ResNet50"}]}]})");
  const auto out = (dir.path() / "goodput.json").string();
  const auto r = cli({"goodput", "-s", scenario, "-d", "4", "--warmup", "1", "--precision", "0.02", "--out", out});
  ASSERT_EQ(r.status, 0) << r.err;
  const auto g = nlohmann::json::parse(servescope::test::read_file(out));
  const double goodput = g["goodput_rps"].get<double>();
  EXPECT_GT(goodput, 4501) << "above the no-coordination bound";
  EXPECT_LT(goodput, 5839) << "below the staggered bound";
  EXPECT_EQ(g["kind"], "goodput-search");
  EXPECT_GE(g["max_rate_at_99_attainment_rps"].get<double>(), goodput * 0.98);
  EXPECT_GT(g["probes"].size(), 3u);
}

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

TEST(Cli, GletPlansEverySystemAndSimulatesThePlan) {
  TempDir dir;
  const auto scenario = dir.write("scenario.json", servescope::test::glet_scenario_json(1200));
  for (const auto* system : {"glet", "glet-noint", "sbp", "sbp-even", "greedy-bestfit", "ideal"}) {
    const auto out = (dir.path() / (std::string(system) + ".json")).string();
    const auto r = cli({"plan", "-s", scenario, "--system", system, "-o", out});
    ASSERT_EQ(r.status, 0) << system << ": " << r.err;
    EXPECT_NE(r.out.find(std::string(system) + ": fits on"), std::string::npos) << r.out;
    const auto plan = nlohmann::json::parse(servescope::test::read_file(out));
    EXPECT_EQ(plan["kind"], "glet-plan");
    EXPECT_EQ(plan["system"], system);
    EXPECT_TRUE(plan["feasible"].get<bool>());
  }
  const auto run = cli({"--json", "simulate", "-s", scenario, "--plan", (dir.path() / "glet.json").string(),
                        "--load-factor", "0.8", "-d", "10"});
  ASSERT_EQ(run.status, 0) << run.err;
  const auto result = nlohmann::json::parse(run.out);
  EXPECT_EQ(result["system"], "glet");
  EXPECT_GE(result["summary"]["slo_attainment"].get<double>(), 0.99);
  // Too much for four GPUs: the plan says which model does not fit, and the command fails.
  const auto heavy = dir.write("heavy.json", servescope::test::glet_scenario_json(40000));
  const auto over = cli({"plan", "-s", heavy, "--system", "glet"});
  EXPECT_EQ(over.status, 1);
  EXPECT_NE(over.out.find("do not fit on 4 GPU(s)"), std::string::npos) << over.out;
  // --sizes narrows the partition sizes: every glet of the plan is one of them.
  const auto halves = cli({"--json", "plan", "-s", scenario, "--system", "glet", "--sizes", "50,100"});
  ASSERT_EQ(halves.status, 0) << halves.err;
  const auto halves_plan = nlohmann::json::parse(halves.out);
  for (const auto& gpu : halves_plan["layout"])
    for (const auto& glet : gpu["glets"])
      EXPECT_TRUE(glet["size_percent"] == 50 || glet["size_percent"] == 100) << glet.dump();
  EXPECT_EQ(cli({"plan", "-s", scenario, "--system", "glet", "--sizes", "50,150"}).status, 2);
  // glet-serving schedules by itself and reports each schedule it ran.
  const auto served = cli({"--json", "simulate", "-s", scenario, "--system", "glet-serving", "-d", "25", "--period",
                           "10", "--reorganisation", "2"});
  ASSERT_EQ(served.status, 0) << served.err;
  const auto served_json = nlohmann::json::parse(served.out);
  ASSERT_GE(served_json["reorganisations"].size(), 1u);
  EXPECT_EQ(served_json["reorganisations"][0]["active_s"].get<double>(), 0.0);
  EXPECT_GE(served_json["summary"]["slo_attainment"].get<double>(), 0.99);
  // A glet plan runs only on the glet data plane.
  const auto wrong =
      cli({"simulate", "-s", scenario, "--plan", (dir.path() / "glet.json").string(), "--system", "reservation"});
  EXPECT_EQ(wrong.status, 2) << wrong.err;
  EXPECT_NE(wrong.err.find("glet data plane"), std::string::npos) << wrong.err;
}

TEST(Cli, FitInterferenceRecoversCoefficientsFromCoRuns) {
  TempDir dir;
  const auto scenario = dir.write("scenario.json", servescope::test::glet_scenario_json(100));
  // Co-runs of the fixture's models a and b made from known coefficients. Their utilisation is
  // linear in batch between 1 and 32 (half at batch 1), so features vary enough to fit all five.
  const double c1 = 0.1, c2 = 0.6, c3 = 0.3, c4 = 0.1, c5 = 0.92;
  const auto feature = [](double full, int b) { return full / 2 + (full / 2) * (b - 1) / 31.0; };
  std::ostringstream csv;
  csv.precision(15);  // the co-run latencies carry the coefficients: do not round them away
  csv << "model,batch,size_percent,other_model,other_batch,other_size_percent,solo_ms,corun_ms\n";
  const std::map<std::string, std::pair<double, double>> util = {{"a", {0.2, 0.4}}, {"b", {0.3, 0.5}}};
  for (const auto* self : {"a", "b"})
    for (const auto* other : {"a", "b"})
      for (const int b : {1, 4, 8, 16, 32})
        for (const int ob : {2, 8, 32})
          for (const auto& [p, q] : std::vector<std::pair<int, int>>{{20, 80}, {40, 60}, {50, 50}, {80, 20}}) {
            const auto [l2, dram] = util.at(self);
            const auto [ol2, odram] = util.at(other);
            const double slowdown = c1 * feature(l2, b) * p / 100 + c2 * feature(ol2, ob) * q / 100 +
                                    c3 * feature(dram, b) * p / 100 + c4 * feature(odram, ob) * q / 100 + c5;
            csv << self << "," << b << "," << p << "," << other << "," << ob << "," << q << ",10," << 10 * slowdown
                << "\n";
          }
  const auto coruns = dir.write("coruns.csv", csv.str());
  const auto out = (dir.path() / "int.json").string();
  const auto r = cli({"fit-interference", "--coruns", coruns, "--profiles", scenario, "--gpu", "RTX2080Ti", "-o", out});
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_NE(r.err.find("validation on"), std::string::npos) << r.err;
  const auto set = nlohmann::json::parse(servescope::test::read_file(out));
  ASSERT_EQ(set["interference"].size(), 1u);
  const auto& m = set["interference"][0];
  EXPECT_NEAR(m["l2_self"].get<double>(), c1, 1e-6);
  EXPECT_NEAR(m["l2_other"].get<double>(), c2, 1e-6);
  EXPECT_NEAR(m["dram_self"].get<double>(), c3, 1e-6);
  EXPECT_NEAR(m["dram_other"].get<double>(), c4, 1e-6);
  EXPECT_NEAR(m["constant"].get<double>(), c5, 1e-6);
  // A model without utilisation is named, with its line.
  const auto bad = dir.write("bad.csv",
                             "model,batch,size_percent,other_model,other_batch,other_size_percent,solo_ms,"
                             "corun_ms\nd,1,50,a,1,50,10,11\n");
  const auto refused = cli({"fit-interference", "--coruns", bad, "--profiles", scenario, "--gpu", "RTX2080Ti"});
  EXPECT_EQ(refused.status, 2);
  EXPECT_NE(refused.err.find("line 2"), std::string::npos) << refused.err;
  EXPECT_NE(refused.err.find("no L2/DRAM utilisation for d"), std::string::npos) << refused.err;
}

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
