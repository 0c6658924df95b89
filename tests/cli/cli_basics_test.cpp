// servescope-cli end to end, the document commands and the command line: validate, info, demo and
// import, usage errors and typos, with exit statuses, messages and outputs as a user or a script sees them.
#include <cstdlib>
#include <filesystem>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>
#include <sstream>

#include "tests/cli/cli_test_support.h"
#include "tests/model/csv_fixtures.h"
#include "tests/support/test_support.h"

namespace fs = std::filesystem;
using servescope::test::cli;
using servescope::test::shell_quote;
using servescope::test::TempDir;

namespace {

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

// validate and info refused the CLI's own outputs ("unknown kind 'run-result'") while the README
// says validate checks any ServeScope file. Every kind ServeScope writes validates and shows.
TEST(Cli, ValidateAndInfoReadEveryKindServeScopeWrites) {
  TempDir dir;
  const auto run = (dir.path() / "run.json").string(), timeline = (dir.path() / "timeline.json").string(),
             packed = (dir.path() / "packed.json").string(), plan = (dir.path() / "plan.json").string(),
             sweep = (dir.path() / "sweep.json").string(), goodput = (dir.path() / "goodput.json").string();
  const std::string demo = "builtin:projects/demo.json", ppipe = "builtin:projects/ppipe-demo.json";
  ASSERT_EQ(cli({"simulate", "-s", demo, "-w", "mixed-37", "--rate", "300", "-d", "1", "--warmup", "0", "-o", run,
                 "--timeline", timeline})
                .status,
            0);
  ASSERT_EQ(cli({"simulate", "-s", demo, "-w", "mixed-37", "--rate", "300", "-d", "1", "--warmup", "0", "--timeline",
                 packed, "--packed-timeline"})
                .status,
            0);
  ASSERT_EQ(cli({"plan", "-s", ppipe, "--system", "np", "-o", plan}).status, 0);
  ASSERT_EQ(cli({"sweep", "-s", demo, "-w", "mixed-37", "-d", "1", "--from", "0.5", "--to", "0.6", "--step", "0.1",
                 "-o", sweep})
                .status,
            0);
  ASSERT_EQ(
      cli({"goodput", "-s", demo, "-w", "mixed-37", "-d", "1", "--warmup", "0", "--precision", "0.2", "-o", goodput})
          .status,
      0);
  for (const auto& [file, kind] : std::vector<std::pair<std::string, std::string>>{{run, "run-result"},
                                                                                   {timeline, "timeline"},
                                                                                   {packed, "timeline"},
                                                                                   {plan, "pipeline-plan"},
                                                                                   {sweep, "load-sweep"},
                                                                                   {goodput, "goodput-search"}}) {
    const auto v = cli({"validate", file});
    EXPECT_EQ(v.status, 0) << file << "\n" << v.err;
    EXPECT_NE(v.out.find(": ok (" + kind + ")"), std::string::npos) << v.out;
    const auto i = cli({"--json", "info", file});
    ASSERT_EQ(i.status, 0) << file << "\n" << i.err;
    EXPECT_EQ(nlohmann::json::parse(i.out)["kind"], kind) << i.out;
    const auto text = cli({"info", file});
    EXPECT_TRUE(text.out.starts_with(kind + "\n")) << text.out;
  }
  EXPECT_GT(nlohmann::json::parse(cli({"--json", "info", timeline}).out)["batches"].get<int>(), 0);
  // A kind nobody writes is refused naming every kind there is.
  const auto other = dir.write("other.json", R"({"schema_version": 1, "kind": "spreadsheet"})");
  const auto r = cli({"validate", other});
  EXPECT_EQ(r.status, 2);
  EXPECT_NE(r.err.find("unknown kind 'spreadsheet' (expected gpu-catalog, cluster, profiles, scenario, project, "
                       "run-result, load-sweep, timeline"),
            std::string::npos)
      << r.err;
}

// A project's kept run holds its timeline packed; validate said "ok (project)" for one whose
// packed rows were corrupt (formats.md says those bodies are read in full when validated).
TEST(Cli, ValidateReadsTheTimelinesAProjectKeeps) {
  TempDir dir;
  const auto run_file = (dir.path() / "run.json").string(), timeline_file = (dir.path() / "t.json").string();
  ASSERT_EQ(cli({"simulate", "-s", "builtin:projects/demo.json", "-w", "mixed-37", "--rate", "300", "-d", "1",
                 "--warmup", "0", "-o", run_file, "--timeline", timeline_file, "--packed-timeline"})
                .status,
            0);
  auto body = nlohmann::json::parse(servescope::test::read_file(run_file));
  body["timeline"] = nlohmann::json::parse(servescope::test::read_file(timeline_file));
  auto project =
      nlohmann::json::parse(servescope::test::read_file(std::string(SERVESCOPE_RESOURCES_DIR) + "/projects/demo.json"));
  const auto with_run = [&](const nlohmann::json& b) {
    auto p = project;
    p["runs"] = nlohmann::json::array(
        {{{"name", "kept"}, {"system", "symphony"}, {"created_utc", "2026-01-01T00:00:00Z"}, {"body", b}}});
    return p.dump();
  };
  const auto good = dir.write("good.json", with_run(body));
  const auto ok = cli({"validate", good});
  ASSERT_EQ(ok.status, 0) << ok.err;
  auto bad_base64 = body;
  bad_base64["timeline"]["packed"]["data"] = "not base64 at all!";
  auto wrong_size = body;
  wrong_size["timeline"]["packed"]["bytes"] = wrong_size["timeline"]["packed"]["bytes"].get<int>() + 1;
  auto few_gpus = body;  // rows that name slots the layout no longer has
  for (const auto* key : {"gpus", "gpu_types", "gpu_shares", "gpu_physical", "duty_cycle_us", "gpu_server"})
    few_gpus["timeline"][key] = nlohmann::json::array({few_gpus["timeline"][key][0]});
  for (const auto& [name, b] : std::vector<std::pair<std::string, nlohmann::json>>{
           {"bad-base64.json", bad_base64}, {"wrong-size.json", wrong_size}, {"few-gpus.json", few_gpus}}) {
    const auto path = dir.write(name, with_run(b));
    const auto r = cli({"validate", path});
    EXPECT_EQ(r.status, 2) << name << ": " << r.out;
    EXPECT_NE(r.err.find(path + ": $.runs[0].body.timeline"), std::string::npos) << name << ": " << r.err;
  }
}

// gen-certs run twice replaced the CA, so every certificate handed out stopped being trusted; a
// key readable by everyone was used without a word.
TEST(Cli, GenCertsKeepsItsCaAndAKeyOthersCanReadIsWarnedAbout) {
  TempDir dir;
  const auto certs = (dir.path() / "certs").string();
  ASSERT_EQ(cli({"live", "gen-certs", certs}).status, 0);
  const auto ca = servescope::test::read_file(dir.path() / "certs/ca.pem");
  const auto again = cli({"live", "gen-certs", certs});
  EXPECT_EQ(again.status, 2);
  EXPECT_NE(again.err.find("ca.key exists: a new CA would stop every certificate"), std::string::npos) << again.err;
  EXPECT_EQ(servescope::test::read_file(dir.path() / "certs/ca.pem"), ca);
  const auto issued = cli({"live", "gen-certs", certs, "--issue", "worker-b", "--role", "worker"});
  EXPECT_EQ(issued.status, 0) << issued.err;
  EXPECT_TRUE(fs::exists(dir.path() / "certs/worker-b.key"));
  EXPECT_EQ(cli({"live", "gen-certs", certs, "--issue", "worker-c"}).status, 2);  // no role
  EXPECT_EQ(cli({"live", "gen-certs", certs, "--issue", "x", "--role", "admin"}).status, 2);
  fs::permissions(dir.path() / "certs/loadgen.key",
                  fs::perms::owner_read | fs::perms::owner_write | fs::perms::group_read | fs::perms::others_read);
  // A load generator with nowhere to connect: it says what it thinks of its key first.
  const auto r = cli({"live", "loadgen", "--connect", "127.0.0.1:1", "--token", "a-token-of-16-bytes-or-more",
                      "--ready-timeout", "0.2", "--tls-cert", certs + "/loadgen.pem", "--tls-key",
                      certs + "/loadgen.key", "--tls-ca", certs + "/ca.pem"});
  EXPECT_NE(r.status, 0);
  EXPECT_NE(r.err.find("warning: --tls-key " + certs + "/loadgen.key can be read by other users (chmod 600 it)"),
            std::string::npos)
      << r.err;
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

// The CUDA commands run in servescope-cuda beside servescope-cli (README "GPU execution"). A
// servescope-cli alone says what it lacks and how to get it, exit 2; a wrong combination of
// options is refused before any hand-over.
TEST(Cli, GpuCommandsSayWhatTheyNeedWhereTheyCannotRun) {
  TempDir alone;
  const auto copy = alone.path() / "servescope-cli";
  std::filesystem::copy_file(SERVESCOPE_CLI, copy);
  std::filesystem::permissions(copy, std::filesystem::perms::owner_all);
  const auto run = [&](const std::string& args) {
    const auto err = alone.path() / "err";
    const int rc = std::system(("SERVESCOPE_TOKEN=cli-test-token-0123456789 " + shell_quote(copy.string()) + " " +
                                args + " >/dev/null 2>" + shell_quote(err.string()) + " </dev/null")
                                   .c_str());
    return servescope::test::Run{WIFEXITED(rc) ? WEXITSTATUS(rc) : -1, "", servescope::test::read_file(err)};
  };
  const auto csv = shell_quote((alone.path() / "coruns.csv").string());
  for (const auto& args :
       std::vector<std::string>{"gpu list", "measure-interference -o " + csv, "profile --arch resnet50 --device cuda",
                                "live worker --node gpu0 --executor cuda --connect 127.0.0.1:1"}) {
    const auto r = run(args);
    EXPECT_EQ(r.status, 2) << args << ": " << r.err;
    EXPECT_NE(r.err.find("no servescope-cuda beside it"), std::string::npos) << args << ": " << r.err;
  }
  EXPECT_EQ(cli({"profile"}).status, 2) << "neither a MODEL_DIR nor --arch";
  for (const std::string args : {"profile --arch resnet50", "profile some-model --arch resnet50 --device cuda"}) {
    const auto refused = run(args);
    EXPECT_EQ(refused.status, 2) << args;
    EXPECT_NE(refused.err.find("--arch NAME measures the estimator's CNNs on a GPU: with --device cuda"),
              std::string::npos)
        << args << ": " << refused.err;
  }
}

TEST(Cli, TyposGetASuggestionAndGlobalOptionsComeAnywhere) {
  const auto r = cli({"simulat"});
  EXPECT_EQ(r.status, 2);
  EXPECT_NE(r.err.find("did you mean 'simulate'?"), std::string::npos) << r.err;
  const auto info = cli({"info", "builtin:projects/demo.json", "--json"});
  ASSERT_EQ(info.status, 0) << info.err;
  EXPECT_EQ(nlohmann::json::parse(info.out)["kind"], "project");
}
