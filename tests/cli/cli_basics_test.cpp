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
    EXPECT_NE(refused.err.find("the GPU profiles the estimator's CNNs"), std::string::npos)
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
