// servescope-cli under SIGTERM, SIGINT and SIGKILL: it ends with 143 or 130 and leaves no
// temporary file behind, a killed run's temporaries are swept by the next write to their folder,
// and the files of one run name each other so a reader can tell a mismatched set.
#include <fcntl.h>
#include <signal.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <sys/stat.h>
#include <sys/wait.h>
#include <thread>
#include <vector>

#include "tests/support/child_process.h"
#include "tests/support/test_support.h"

namespace fs = std::filesystem;
using servescope::test::TempDir;
using namespace std::chrono_literals;

namespace {

// Generous bounds, only so that a failure cannot hang ctest; nothing here measures speed.
constexpr auto kPatience = 120s;

// servescope-cli as a child whose raw wait status the test reads: an exit with 143 is not a death
// by SIGTERM. Killed on destruction if it still runs.
class Cli : public servescope::test::ChildProcess {
 public:
  Cli(const std::vector<std::string>& args, const fs::path& logs)
      : ChildProcess(SERVESCOPE_CLI, args, logs / "out", logs / "err") {}

  // Waits until it takes SIGINT and SIGTERM itself: its signal thread has started (the signals
  // are blocked before), so one sent now is handled, not the default death.
  // Until the process catches SIGINT and SIGTERM (/proc/PID/status SigCgt): handle_stop_signals
  // installs their handlers after its signal thread is up. Counting threads stopped working
  // when a library (LibTorch) started threads of its own before main.
  bool wait_for_signal_thread() {
    const fs::path status = "/proc/" + std::to_string(pid()) + "/status";
    const auto until = std::chrono::steady_clock::now() + kPatience;
    const std::uint64_t wanted = (std::uint64_t{1} << (SIGINT - 1)) | (std::uint64_t{1} << (SIGTERM - 1));
    while (running() && std::chrono::steady_clock::now() < until) {
      std::ifstream in(status);
      for (std::string line; std::getline(in, line);)
        if (line.starts_with("SigCgt:") && (std::stoull(line.substr(7), nullptr, 16) & wanted) == wanted) return true;
      std::this_thread::sleep_for(10ms);
    }
    return false;
  }
  // The wait status, or nullopt when it is still running after kPatience.
  std::optional<int> wait() { return wait_status(kPatience); }
};

std::vector<std::string> temporaries_in(const fs::path& dir) {
  std::vector<std::string> found;
  for (const auto& e : fs::directory_iterator(dir))
    if (e.path().filename().string().find(".tmp-") != std::string::npos) found.push_back(e.path().filename());
  return found;
}

// Waits until `cli` has a temporary file in `dir`; false if it ends first.
bool wait_for_temporary(Cli& cli, const fs::path& dir) {
  const auto until = std::chrono::steady_clock::now() + kPatience;
  while (cli.running() && std::chrono::steady_clock::now() < until) {
    if (!temporaries_in(dir).empty()) return true;
    std::this_thread::sleep_for(10ms);
  }
  return false;
}

// A simulation of the demo at a low rate (its request log grows slowly) for `duration_s`
// simulated seconds, writing all three outputs into `dir`.
std::vector<std::string> simulation(const fs::path& dir, const std::string& duration_s, const std::string& warmup_s) {
  return {"simulate",
          "-s",
          "builtin:projects/demo.json",
          "--rate",
          "200",
          "-d",
          duration_s,
          "--warmup",
          warmup_s,
          "-o",
          dir / "run.json",
          "--timeline",
          dir / "timeline.json",
          "--requests",
          dir / "requests.csv"};
}

// One that runs far longer than any test waits.
std::vector<std::string> long_simulation(const fs::path& dir) {
  return simulation(dir, "100000", "0");
}

std::vector<std::string> short_simulation(const fs::path& dir) {
  return simulation(dir, "2", "0.5");
}

// Stops a long simulation with `sig` once its first temporary exists; returns its wait status.
int stop_with(int sig, const fs::path& out, const fs::path& logs, std::string* err) {
  Cli cli(long_simulation(out), logs);
  EXPECT_TRUE(wait_for_temporary(cli, out)) << cli.err();
  cli.signal(sig);
  const auto status = cli.wait();
  *err = cli.err();
  EXPECT_TRUE(status.has_value()) << "servescope-cli did not end after signal " << sig;
  return status.value_or(-1);
}

}  // namespace

TEST(CliSignals, SigtermStopsWith143AndLeavesNoTemporaries) {
  TempDir out, logs;
  std::string err;
  const int status = stop_with(SIGTERM, out.path(), logs.path(), &err);
  ASSERT_TRUE(WIFEXITED(status)) << "it must exit, not die of the signal; stderr:\n" << err;
  EXPECT_EQ(WEXITSTATUS(status), 143) << err;
  EXPECT_EQ(temporaries_in(out.path()), std::vector<std::string>{});
  EXPECT_TRUE(fs::is_empty(out.path())) << "a stopped run puts nothing in place";
}

TEST(CliSignals, SigintStopsWith130AndLeavesNoTemporaries) {
  TempDir out, logs;
  std::string err;
  const int status = stop_with(SIGINT, out.path(), logs.path(), &err);
  ASSERT_TRUE(WIFEXITED(status)) << err;
  EXPECT_EQ(WEXITSTATUS(status), 130) << err;
  EXPECT_EQ(temporaries_in(out.path()), std::vector<std::string>{});
}

TEST(CliSignals, AFileOfThePreviousRunStaysWholeWhenARunIsStopped) {
  TempDir out, logs;
  {
    Cli first(short_simulation(out.path()), logs.path());
    const auto status = first.wait();
    ASSERT_TRUE(status && WIFEXITED(*status) && WEXITSTATUS(*status) == 0) << first.err();
  }
  const auto before = servescope::test::read_file(out.path() / "run.json");
  std::string err;
  const int status = stop_with(SIGTERM, out.path(), logs.path(), &err);
  ASSERT_TRUE(WIFEXITED(status)) << err;
  EXPECT_EQ(WEXITSTATUS(status), 143);
  EXPECT_EQ(servescope::test::read_file(out.path() / "run.json"), before);
  EXPECT_EQ(temporaries_in(out.path()), std::vector<std::string>{});
}

TEST(CliSignals, SigkillLeavesATemporaryThatTheNextWriteSweeps) {
  TempDir out, logs;
  std::string err;
  const int status = stop_with(SIGKILL, out.path(), logs.path(), &err);
  ASSERT_TRUE(WIFSIGNALED(status));
  const auto orphans = temporaries_in(out.path());
  ASSERT_FALSE(orphans.empty()) << "SIGKILL cannot be caught: its temporaries stay until swept";
  Cli next(short_simulation(out.path()), logs.path());
  const auto next_status = next.wait();
  ASSERT_TRUE(next_status && WIFEXITED(*next_status) && WEXITSTATUS(*next_status) == 0) << next.err();
  EXPECT_EQ(temporaries_in(out.path()), std::vector<std::string>{}) << "the killed run's " << orphans.front();
}

TEST(CliSignals, FilesOfOneRunShareAnIdAndTheRunFileListsItsCompanions) {
  TempDir out, logs;
  {
    Cli cli(short_simulation(out.path()), logs.path());
    const auto status = cli.wait();
    ASSERT_TRUE(status && WIFEXITED(*status) && WEXITSTATUS(*status) == 0) << cli.err();
  }
  const auto run = nlohmann::json::parse(servescope::test::read_file(out.path() / "run.json"));
  const auto timeline = nlohmann::json::parse(servescope::test::read_file(out.path() / "timeline.json"));
  const std::string id = run.at("run_id");
  EXPECT_EQ(id.size(), 32u);
  EXPECT_EQ(timeline.at("run_id"), id);
  ASSERT_EQ(run.at("companions").size(), 2u);
  for (const auto& c : run["companions"]) {
    const fs::path file = out.path() / c.at("path").get<std::string>();
    EXPECT_TRUE(c.at("path") == "timeline.json" || c.at("path") == "requests.csv") << c;
    EXPECT_EQ(c.at("bytes").get<std::uintmax_t>(), fs::file_size(file)) << c;
  }
  // A later run that writes only the timeline leaves a set whose ids differ.
  {
    Cli again({"simulate", "-s", "builtin:projects/demo.json", "--rate", "200", "-d", "2", "--warmup", "0.5",
               "--timeline", out.path() / "timeline.json"},
              logs.path());
    const auto status = again.wait();
    ASSERT_TRUE(status && WIFEXITED(*status) && WEXITSTATUS(*status) == 0) << again.err();
  }
  const auto newer = nlohmann::json::parse(servescope::test::read_file(out.path() / "timeline.json"));
  EXPECT_NE(newer.at("run_id"), id);
}

TEST(CliSignals, AnEmptyOutputPathIsRefusedNamingTheOption) {
  TempDir out, logs;
  for (const std::string option : {"-o", "--timeline", "--requests"}) {
    Cli cli({"simulate", "-s", "builtin:projects/demo.json", "-d", "2", "--warmup", "0.5", option, ""}, logs.path());
    const auto status = cli.wait();
    ASSERT_TRUE(status && WIFEXITED(*status)) << option;
    EXPECT_EQ(WEXITSTATUS(*status), 2) << option << "\n" << cli.err();
    EXPECT_NE(cli.err().find(option == "-o" ? "--out" : option), std::string::npos) << cli.err();
  }
  EXPECT_TRUE(fs::is_empty(out.path()));
}

// Work that never looks at the stop request still ends with the signal's status: a simulation
// blocked opening its request log, a FIFO without a reader, after the grace period; an export,
// which takes no stop request, at once.
TEST(CliSignals, WorkThatDoesNotLookAtTheStopStillEnds) {
  TempDir out, logs;
  const auto fifo = out.path() / "fifo";
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  {
    Cli blocked({"simulate", "-s", "builtin:projects/demo.json", "-d", "2", "--warmup", "0.5", "--requests", fifo},
                logs.path());
    ASSERT_TRUE(blocked.wait_for_signal_thread()) << blocked.err();
    blocked.signal(SIGTERM);
    const auto status = blocked.wait();
    ASSERT_TRUE(status && WIFEXITED(*status)) << blocked.err();
    EXPECT_EQ(WEXITSTATUS(*status), 143) << blocked.err();
  }
  const auto timeline = out.path() / "timeline.json";
  {
    Cli sim({"simulate", "-s", "builtin:projects/demo.json", "-d", "2", "--warmup", "0.5", "--timeline", timeline},
            logs.path());
    const auto status = sim.wait();
    ASSERT_TRUE(status && WIFEXITED(*status) && WEXITSTATUS(*status) == 0) << sim.err();
  }
  Cli exporting({"export", "chrome-trace", timeline, "-o", fifo}, logs.path());
  ASSERT_TRUE(exporting.wait_for_signal_thread()) << exporting.err();
  exporting.signal(SIGINT);
  const auto status = exporting.wait();
  ASSERT_TRUE(status && WIFEXITED(*status)) << exporting.err();
  EXPECT_EQ(WEXITSTATUS(*status), 130) << exporting.err();
  EXPECT_EQ(temporaries_in(out.path()), std::vector<std::string>{});
}
