// servescope-cli against the corpus of crash and hang inputs: tests/corpus/bad_inputs/ (small
// hand-made files, see its README.md; docs/formats.md "Files from elsewhere") plus what is too big
// to keep in the repository and is generated here (100k- and 1M-deep nesting, a 50 MB file of "[]").
//
// Every case must end with exit status 2 and a message that names the file, within a generous
// bound (a case still running after it is killed and counted as a hang: the bound is not a speed
// assertion), without a signal, and within a bound on peak memory. Each test prints a summary:
// runs, exits by status, signals, hangs.
#include <fcntl.h>
#include <signal.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <gtest/gtest.h>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <set>
#include <sstream>
#include <string>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <thread>
#include <vector>

#include "tests/support/child_process.h"
#include "tests/support/test_support.h"
#include "tests/support/timeline_bomb.h"

namespace fs = std::filesystem;
using servescope::test::TempDir;

namespace {

// Every file of tests/corpus/bad_inputs/ (README.md aside). A file missing from this list, or
// listed but missing from the folder, fails CorpusListIsComplete: no bad input escapes the tests.
const std::vector<std::string> kCorpusFiles = {
    "duplicate_keys.json",
    "duplicate_keys_cluster.json",
    "duplicate_keys_plan.json",
    "duplicate_keys_project.json",
    "include_cycle_a.json",
    "include_cycle_b.json",
    "include_dev_null.json",
    "include_dev_stdin.json",
    "include_dev_zero.json",
    "include_fifo.json",
    "include_self.json",
    "include_self_project.json",
    "plan_kind_array.json",
    "plan_kind_object.json",
    "plan_system_array.json",
    "plan_throughput_4e9.json",
    "rate_multiplier_huge.json",
    "rate_multiplier_tiny.json",
    "rate_tiny.json",
    "run_beyond_double.json",
    "run_beyond_int64.json",
    "run_uint64_max.json",
    "timeline_beyond_double.json",
    "timeline_beyond_int64.json",
    "timeline_uint64_max.json",
    "trace_dev_zero.json",
    "trace_fifo.json",
    "weight_tiny.json",
};

constexpr const char* kPipelineScenario = "builtin:projects/ppipe-demo.json";

// A refusal must not take more memory than this (a 50 MB file took 1.29 GB). Sanitizers add their
// own bookkeeping to every allocation.
#if defined(__SANITIZE_ADDRESS__)
constexpr long kMaxRssKiB = 1200L * 1024;
#else
constexpr long kMaxRssKiB = 600L * 1024;
#endif
// A refusal is one line or a few; a message of megabytes (a 1M-deep JSON path) is not readable.
constexpr std::size_t kMaxMessageBytes = std::size_t{16} * 1024;

std::chrono::seconds case_timeout() {
  // The bound on one run; SERVESCOPE_CORPUS_TIMEOUT_S lowers it while iterating on a fix.
  if (const char* env = std::getenv("SERVESCOPE_CORPUS_TIMEOUT_S"); env && std::atoi(env) > 0)
    return std::chrono::seconds(std::atoi(env));
  return std::chrono::seconds(60);
}

// A child past this is killed at once and reported (a runaway would otherwise take the machine).
constexpr long kKillRssKiB = 3 * kMaxRssKiB;

// The resident memory of a running process, from /proc (0 when it cannot be read).
long resident_kib(pid_t pid) {
  std::ifstream status("/proc/" + std::to_string(pid) + "/status");
  for (std::string line; std::getline(status, line);)
    if (line.rfind("VmRSS:", 0) == 0) return std::atol(line.c_str() + 6);
  return 0;
}

struct Outcome {
  bool hung = false;
  bool runaway = false;  // killed for taking more than kKillRssKiB
  int signal = 0;        // the signal that ended it (0: it exited)
  int status = -1;       // its exit status when it exited
  long max_rss_kib = 0;
  double seconds = 0;
  std::string out, err;
};

// What the runs of one test (and of the whole program) ended with.
struct Tally {
  int runs = 0, signals = 0, hangs = 0, runaways = 0;
  std::map<int, int> exits;
  void add(const Outcome& o) {
    ++runs;
    if (o.hung)
      ++hangs;
    else if (o.runaway)
      ++runaways;
    else if (o.signal)
      ++signals;
    else
      ++exits[o.status];
  }
  std::string line() const {
    std::ostringstream s;
    s << "runs " << runs << ", exits {";
    bool first = true;
    for (const auto& [status, n] : exits) {
      s << (first ? "" : ", ") << status << ": " << n;
      first = false;
    }
    s << "}, signals " << signals << ", hangs " << hangs << ", killed for memory " << runaways;
    return s.str();
  }
};

Tally& program_tally() {
  static Tally t;
  return t;
}

class SummaryEnvironment : public ::testing::Environment {
 public:
  void TearDown() override {
    if (program_tally().runs > 0) std::cout << "[bad-input corpus] all tests: " << program_tally().line() << "\n";
  }
};
const auto* const summary_environment = ::testing::AddGlobalTestEnvironment(new SummaryEnvironment);

using Stdin = servescope::test::ChildProcess::Input;

// The program under test: SERVESCOPE_CORPUS_CLI, when set, checks another build against the corpus.
std::string cli_program() {
  if (const char* env = std::getenv("SERVESCOPE_CORPUS_CLI"); env && *env) return env;
  return SERVESCOPE_CLI;
}

// A child's peak memory (ru_maxrss) starts from what its parent had when it was spawned, and the
// kernel keeps a process's peak, not its current size: so the peak is reset to the current size
// before each spawn (clear_refs 5), and the big texts a test builds are freed by then.
void reset_peak_memory() {
  std::ofstream clear("/proc/self/clear_refs");
  clear << "5";
}

Outcome run_cli(const std::vector<std::string>& args, const fs::path& scratch, Stdin in = Stdin::DevNull) {
  const auto start = std::chrono::steady_clock::now();
  reset_peak_memory();
  servescope::test::ChildProcess child(cli_program(), args, scratch / "stdout", scratch / "stderr", in);
  Outcome o;
  const auto until = start + case_timeout();
  for (auto nap = std::chrono::milliseconds(1); !child.poll(); nap = std::min(nap * 2, std::chrono::milliseconds(50))) {
    if (resident_kib(child.pid()) > kKillRssKiB) {
      o.runaway = true;
      break;
    }
    if (std::chrono::steady_clock::now() > until) {
      o.hung = true;
      break;
    }
    std::this_thread::sleep_for(nap);
  }
  if (o.hung || o.runaway) child.signal(SIGKILL);
  const int status = child.wait_status(std::chrono::seconds(30)).value_or(0);
  o.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  o.max_rss_kib = child.usage().ru_maxrss;  // KiB on Linux
  if (!o.hung && !o.runaway) {
    if (WIFSIGNALED(status))
      o.signal = WTERMSIG(status);
    else if (WIFEXITED(status))
      o.status = WEXITSTATUS(status);
  }
  o.out = child.out();
  o.err = child.err();
  return o;
}

std::string command_line(const std::vector<std::string>& args) {
  std::string s = "servescope-cli";
  for (const auto& a : args)
    s += " " + a;
  return s;
}

std::string head(const std::string& text, std::size_t n = 600) {
  return text.size() <= n ? text : text.substr(0, n) + "... (" + std::to_string(text.size()) + " bytes)";
}

// Writes `n` bytes of text made by `piece` repeated, without holding it all in memory twice.
void write_repeated(const fs::path& path, const std::string& prefix, const std::string& piece, std::size_t count,
                    const std::string& suffix) {
  std::ofstream f(path, std::ios::binary);
  f << prefix;
  std::string chunk;
  for (int i = 0; i < 4096; ++i)
    chunk += piece;
  std::size_t left = count;
  for (; left >= 4096; left -= 4096)
    f.write(chunk.data(), static_cast<std::streamsize>(chunk.size()));
  for (; left > 0; --left)
    f << piece;
  f << suffix;
  if (!f) throw std::runtime_error("cannot write " + path.string());
}

std::string replaced(std::string text, const std::string& from, const std::string& to) {
  const auto at = text.find(from);
  if (at == std::string::npos) throw std::runtime_error("no '" + from + "' to replace");
  return text.replace(at, from.size(), to);
}

// A pipeline plan and a run of the built-in ppipe-demo project (from the corpus, their one bad
// value mended) with `deep` as the first element of one of their arrays; with `deep` empty they
// are what the planner and the simulator wrote.
std::string plan_body(const std::string& deep) {
  const auto plan = replaced(servescope::test::read_file(fs::path(SERVESCOPE_CORPUS_DIR) / "plan_kind_array.json"),
                             R"("kind": [])", R"("kind": "pipeline-plan")");
  return deep.empty() ? plan : replaced(plan, R"("notes": [])", R"("notes": [)" + deep + "]");
}
std::string run_body(const std::string& deep) {
  const auto run =
      replaced(servescope::test::read_file(fs::path(SERVESCOPE_CORPUS_DIR) / "run_beyond_double.json"), "1e400", "3");
  return deep.empty() ? run : replaced(run, R"("latency_cdf_ms": [)", R"("latency_cdf_ms": [)" + deep + ", ");
}

// The built-in ppipe-demo project holding one plan or run (`where`: "plans" or "runs") whose body
// is `body`; with the bodies above undisturbed it validates.
std::string project_with(const std::string& where, const std::string& body) {
  auto project = servescope::test::read_file(fs::path(SERVESCOPE_RESOURCES_DIR) / "projects/ppipe-demo.json");
  const auto end = project.rfind('}');
  if (end == std::string::npos) throw std::runtime_error("ppipe-demo.json is not an object");
  const std::string artifact =
      R"([{"name": "deep", "system": "ppipe", "created_utc": "2026-01-01T00:00:00Z", "body": )" + body + "}]";
  project.resize(end);
  project += std::string(", \"plans\": ") + (where == "plans" ? artifact : "[]");
  project += std::string(", \"runs\": ") + (where == "runs" ? artifact : "[]");
  return project + "}\n";
}

class BadInputCorpus : public ::testing::Test {
 protected:
  // The corpus is copied to a scratch folder so that the FIFO its files include ("fifo", beside
  // them) can be made there, and nothing a run writes lands in the source tree.
  void SetUp() override {
    for (const auto& e : fs::directory_iterator(SERVESCOPE_CORPUS_DIR))
      if (e.is_regular_file()) fs::copy_file(e.path(), dir_.path() / e.path().filename());
    ASSERT_EQ(::mkfifo((dir_.path() / "fifo").c_str(), 0600), 0);
    fs::create_directory(dir_.path() / "scratch");
  }
  void TearDown() override {
    std::cout << "[bad-input corpus] " << ::testing::UnitTest::GetInstance()->current_test_info()->name() << ": "
              << tally_.line() << "\n";
  }

  std::string corpus(const std::string& name) const {
    EXPECT_NE(std::ranges::find(kCorpusFiles, name), kCorpusFiles.end()) << name << " is not in kCorpusFiles";
    return (dir_.path() / name).string();
  }
  std::string scratch(const std::string& name) const { return (dir_.path() / "scratch" / name).string(); }
  std::string fifo() const { return (dir_.path() / "fifo").string(); }
  const fs::path& dir() const { return dir_.path(); }

  struct Expect {
    std::string names;                    // text the message must contain: the file at fault
    std::optional<std::string> out_file;  // an --out that must not be written
    Stdin in = Stdin::DevNull;
  };

  // Runs one bad case and checks it is refused properly; returns the outcome for more checks.
  Outcome refused(const std::vector<std::string>& args, const Expect& expect) {
    auto o = run_cli(args, dir_.path() / "scratch", expect.in);
    tally_.add(o);
    program_tally().add(o);
    const auto what = command_line(args);
    const auto verdict = o.hung      ? std::string("HANG")
                         : o.runaway ? std::string("MEMORY")
                         : o.signal  ? "SIGNAL " + std::to_string(o.signal)
                                     : "exit " + std::to_string(o.status);
    std::cout << "  " << verdict << " in " << o.seconds << " s, " << o.max_rss_kib / 1024 << " MiB: " << what << "\n";
    if (o.runaway) {
      ADD_FAILURE() << what << "\nkilled after " << o.seconds << " s for taking more than " << kKillRssKiB / 1024
                    << " MiB; stderr so far:\n"
                    << head(o.err);
      return o;
    }
    if (o.hung) {
      ADD_FAILURE() << what << "\nhangs: still running after " << case_timeout().count()
                    << " s (killed); stderr so far:\n"
                    << head(o.err);
      return o;
    }
    EXPECT_EQ(o.signal, 0) << what << "\nkilled by signal " << o.signal << " (" << strsignal(o.signal) << "); stderr:\n"
                           << head(o.err);
    if (o.signal) return o;
    EXPECT_EQ(o.status, 2) << what << "\nstderr:\n" << head(o.err);
    EXPECT_NE(o.err.find(expect.names), std::string::npos)
        << what << "\nthe message does not name " << expect.names << ":\n"
        << head(o.err);
    EXPECT_LE(o.err.size(), kMaxMessageBytes) << what << "\nan unreadable message:\n" << head(o.err);
    EXPECT_LE(o.max_rss_kib, kMaxRssKiB) << what << "\npeak memory " << o.max_rss_kib / 1024 << " MiB";
    if (expect.out_file) {
      EXPECT_FALSE(fs::exists(*expect.out_file)) << what << "\nwrote " << *expect.out_file;
    }
    return o;
  }
  Outcome refused(const std::vector<std::string>& args, const std::string& names) {
    return refused(args, Expect{names, std::nullopt, Stdin::DevNull});
  }

  // The control for a corpus file: with `bad` replaced by `good`, the same command succeeds, so
  // the refusal above is for that value and not for something else about the file.
  void accepted_with(const std::string& name, const std::string& bad, const std::string& good,
                     std::vector<std::string> args) {
    auto text = servescope::test::read_file(corpus(name));
    const auto at = text.find(bad);
    ASSERT_NE(at, std::string::npos) << name << " does not contain " << bad;
    text.replace(at, bad.size(), good);
    const auto path = dir_.write("control-" + name, text);
    std::ranges::replace(args, std::string("{}"), path);
    const auto o = run_cli(args, dir_.path() / "scratch");
    EXPECT_EQ(o.status, 0) << "control " << command_line(args) << " (" << bad << " -> " << good
                           << ") should succeed; stderr:\n"
                           << head(o.err);
  }

  // The commands that read a scenario or project file.
  void document_commands(const std::string& file, const std::string& names) {
    refused({"validate", file}, names);
    refused({"info", file}, names);
    refused({"simulate", "-s", file, "-d", "0.1", "--warmup", "0"}, names);
  }

  TempDir dir_;
  Tally tally_;
};

TEST_F(BadInputCorpus, CorpusListIsComplete) {
  std::set<std::string> on_disk;
  for (const auto& e : fs::directory_iterator(SERVESCOPE_CORPUS_DIR)) {
    const auto name = e.path().filename().string();
    if (name != "README.md") on_disk.insert(name);
    EXPECT_LT(e.file_size(), 64u * 1024) << name << ": keep corpus files small; generate big ones in the test";
  }
  EXPECT_EQ(on_disk, std::set<std::string>(kCorpusFiles.begin(), kCorpusFiles.end()));
}

// A plans[].body or runs[].body nested 100k or 1M deep crashed validate, info and simulate (a
// recursive copy). Also deep JSON at the top of, and inside, the other kinds.
TEST_F(BadInputCorpus, DeepNestingIsRefused) {
  // Controls: the same projects with the bodies as written are fine.
  for (const std::string where : {"plans", "runs"}) {
    const auto shallow =
        dir_.write("shallow-" + where + ".json", project_with(where, where == "plans" ? plan_body("") : run_body("")));
    const auto control = run_cli({"validate", shallow}, dir() / "scratch");
    ASSERT_EQ(control.status, 0) << control.err;
  }
  for (const std::size_t depth : {std::size_t{100000}, std::size_t{1000000}}) {
    for (const std::string where : {"plans", "runs"}) {
      const auto body = [&](const std::string& deep) { return where == "plans" ? plan_body(deep) : run_body(deep); };
      const auto arrays = std::string(depth, '[') + std::string(depth, ']');
      const auto file =
          dir_.write(where + "-arrays-" + std::to_string(depth) + ".json", project_with(where, body(arrays)));
      document_commands(file, file);
      std::string objects;
      objects.reserve(depth * 7 + 1);
      for (std::size_t i = 0; i < depth; ++i)
        objects += R"({"a": )";
      objects += "0" + std::string(depth, '}');
      const auto file2 =
          dir_.write(where + "-objects-" + std::to_string(depth) + ".json", project_with(where, body(objects)));
      refused({"validate", file2}, file2);
      refused({"info", file2}, file2);
    }
  }
  // 1M deep at the top level, given to every reader.
  const std::size_t depth = 1000000;
  const auto top = dir_.write("deep-top.json", std::string(depth, '[') + std::string(depth, ']'));
  document_commands(top, top);
  refused({"simulate", "-s", kPipelineScenario, "--plan", top, "-d", "0.1", "--warmup", "0"}, top);
  refused({"sweep", "-s", kPipelineScenario, "--plan", top, "-d", "0.1"}, top);
  const auto csv = scratch("deep.csv"), trace = scratch("deep-trace.json");
  refused({"export", "metrics-csv", top, "-o", csv}, {top, csv});
  refused({"export", "chrome-trace", top, "-o", trace}, {top, trace});
  // Deep inside a member each reader looks at.
  const std::string deep = std::string(100000, '[') + std::string(100000, ']');
  const auto plan =
      dir_.write("deep-plan.json", R"({"schema_version": 1, "kind": "pipeline-plan", "models": )" + deep + "}");
  refused({"simulate", "-s", kPipelineScenario, "--plan", plan, "-d", "0.1", "--warmup", "0"}, plan);
  const auto timeline =
      dir_.write("deep-timeline.json", R"({"schema_version": 1, "kind": "timeline", "spans": )" + deep + "}");
  refused({"export", "chrome-trace", timeline, "-o", trace}, {timeline, trace});
  const auto run =
      dir_.write("deep-run.json", R"({"schema_version": 1, "kind": "run-result", "summary": )" + deep + "}");
  refused({"export", "metrics-csv", run, "-o", csv}, {run, csv});
}

// A scenario that includes itself, or a -> b -> a, recursed until SIGSEGV.
TEST_F(BadInputCorpus, IncludeCyclesAreRefused) {
  for (const auto* name : {"include_self.json", "include_cycle_a.json", "include_cycle_b.json"})
    document_commands(corpus(name), corpus(name));
  const auto project = corpus("include_self_project.json");
  document_commands(project, project);
}

// Devices and FIFOs given as the file, as a profile include and as a trace.
class DeviceAsFile : public BadInputCorpus, public ::testing::WithParamInterface<std::string> {};

TEST_P(DeviceAsFile, IsRefusedByEveryCommand) {
  const auto device = GetParam() == "fifo" ? fifo() : GetParam();
  const auto in = device == "/dev/stdin" ? Stdin::IdlePipe : Stdin::DevNull;
  const auto csv = scratch("never.csv"), trace = scratch("never-trace.json"), profiles = scratch("never-profiles.json");
  refused({"validate", device}, {device, std::nullopt, in});
  refused({"info", device}, {device, std::nullopt, in});
  refused({"simulate", "-s", device, "-d", "0.1", "--warmup", "0"}, {device, std::nullopt, in});
  refused({"simulate", "-s", kPipelineScenario, "--plan", device, "-d", "0.1", "--warmup", "0"},
          {device, std::nullopt, in});
  refused({"sweep", "-s", kPipelineScenario, "--plan", device, "-d", "0.1"}, {device, std::nullopt, in});
  refused({"export", "metrics-csv", device, "-o", csv}, {device, csv, in});
  refused({"export", "chrome-trace", device, "-o", trace}, {device, trace, in});
  refused({"import", "alphabeta", device, "--out", profiles}, {device, profiles, in});
}

INSTANTIATE_TEST_SUITE_P(Devices, DeviceAsFile, ::testing::Values("/dev/zero", "/dev/null", "/dev/stdin", "fifo"),
                         [](const ::testing::TestParamInfo<std::string>& param) {
                           return param.param == "fifo" ? std::string("fifo") : param.param.substr(5);
                         });

TEST_F(BadInputCorpus, DevicesAndFifosAsIncludesAndTracesAreRefused) {
  // The including file is named.
  for (const auto* name : {"include_dev_zero.json", "include_dev_null.json", "include_fifo.json", "trace_dev_zero.json",
                           "trace_fifo.json"})
    document_commands(corpus(name), corpus(name));
  const auto stdin_include = corpus("include_dev_stdin.json");
  refused({"validate", stdin_include}, {stdin_include, std::nullopt, Stdin::IdlePipe});
  refused({"info", stdin_include}, {stdin_include, std::nullopt, Stdin::IdlePipe});
}

// A FIFO that has a writer (which never writes): a blocking read would wait forever.
TEST_F(BadInputCorpus, AFifoWithAnIdleWriterIsRefused) {
  const int writer = ::open(fifo().c_str(), O_RDWR | O_NONBLOCK | O_CLOEXEC);
  ASSERT_GE(writer, 0);
  refused({"validate", fifo()}, fifo());
  refused({"validate", corpus("include_fifo.json")}, corpus("include_fifo.json"));
  refused({"validate", corpus("trace_fifo.json")}, corpus("trace_fifo.json"));
  ::close(writer);
}

// Library exceptions escaped as exit 1 without a file name.
TEST_F(BadInputCorpus, LibraryExceptionsBecomeLocatedRefusals) {
  for (const auto* name : {"plan_kind_array.json", "plan_kind_object.json", "plan_system_array.json"}) {
    refused({"simulate", "-s", kPipelineScenario, "--plan", corpus(name), "-d", "0.1", "--warmup", "0"}, corpus(name));
    refused({"sweep", "-s", kPipelineScenario, "--plan", corpus(name), "-d", "0.1"}, corpus(name));
  }
  accepted_with("plan_kind_array.json", R"("kind": [])", R"("kind": "pipeline-plan")",
                {"simulate", "-s", kPipelineScenario, "--plan", "{}", "-d", "0.1", "--warmup", "0"});
  const auto csv = scratch("never.csv"), trace = scratch("never-trace.json");
  for (const auto* name : {"run_beyond_int64.json", "run_uint64_max.json", "run_beyond_double.json"}) {
    refused({"export", "metrics-csv", corpus(name), "-o", csv}, {corpus(name), csv});
    refused({"export", "chrome-trace", corpus(name), "-o", trace}, {corpus(name), trace});
  }
  for (const auto* name : {"timeline_beyond_int64.json", "timeline_uint64_max.json", "timeline_beyond_double.json"}) {
    refused({"export", "chrome-trace", corpus(name), "-o", trace}, {corpus(name), trace});
    refused({"export", "metrics-csv", corpus(name), "-o", csv}, {corpus(name), csv});
  }
  accepted_with("run_beyond_double.json", "1e400", "3", {"export", "metrics-csv", "{}", "-o", scratch("ok.csv")});
  accepted_with("run_beyond_int64.json", "99999999999999999999", "3",
                {"export", "metrics-csv", "{}", "-o", scratch("ok.csv")});
  accepted_with("timeline_beyond_int64.json", "99999999999999999999", "1",
                {"export", "chrome-trace", "{}", "-o", scratch("ok.json")});
  accepted_with("timeline_beyond_double.json", "1e400", "115.63",
                {"export", "chrome-trace", "{}", "-o", scratch("ok.json")});
}

// A weight of 1e-300 or a rate multiplier near zero passed validate, then simulate generated
// arrival gaps of centuries (signed overflow, memory past 2 GB); a plan of 4e9 req/s made sweep
// offer that forever. Each must be refused where it is read.
TEST_F(BadInputCorpus, AbsurdRatesAndWeightsAreRefused) {
  for (const auto* name :
       {"weight_tiny.json", "rate_multiplier_tiny.json", "rate_tiny.json", "rate_multiplier_huge.json"}) {
    refused({"validate", corpus(name)}, corpus(name));
    refused({"simulate", "-s", corpus(name), "-d", "10", "--warmup", "0"}, corpus(name));
  }
  accepted_with("weight_tiny.json", "1e-300", "0.5", {"validate", "{}"});
  accepted_with("rate_multiplier_tiny.json", "1e-300", "0.5", {"validate", "{}"});
}

TEST_F(BadInputCorpus, AbsurdPlannedThroughputsAreRefused) {
  const auto plan = corpus("plan_throughput_4e9.json");
  refused({"sweep", "-s", kPipelineScenario, "--plan", plan, "-d", "1"}, plan);
  refused({"simulate", "-s", kPipelineScenario, "--plan", plan, "-d", "1", "--warmup", "0"}, plan);
}

// A 50 MB file of "[]" took 1.29 GB before exit 2. Every reader must refuse it within the memory
// bound.
TEST_F(BadInputCorpus, HugeFilesAreRefusedWithBoundedMemory) {
  const auto big = dir() / "arrays-50MB.json";
  write_repeated(big, "[", "[],", 50'000'000 / 3, "[]]");
  ASSERT_GE(fs::file_size(big), 50'000'000u);
  const auto file = big.string();
  document_commands(file, file);
  refused({"simulate", "-s", kPipelineScenario, "--plan", file, "-d", "0.1", "--warmup", "0"}, file);
  refused({"export", "metrics-csv", file, "-o", scratch("never.csv")}, {file, scratch("never.csv")});
  refused({"export", "chrome-trace", file, "-o", scratch("never.json")}, {file, scratch("never.json")});
  // The same inside a document: a project whose run body holds the arrays.
  const auto inside = dir() / "project-arrays-50MB.json";
  const auto text = project_with("runs", run_body("ARRAYS"));
  const auto at = text.find("ARRAYS");
  write_repeated(inside, text.substr(0, at) + "[", "[],", 50'000'000 / 3, "[]]" + text.substr(at + 6));
  refused({"validate", inside.string()}, inside.string());
}

// A packed timeline of 22 million all-zero batches deflates to 238 KB: `export chrome-trace` took
// 1.75 GB building its rows. The declared row counts are now checked against the memory budget a
// JSON text of that size gets, before any table is built, by every reader: export, validate and
// info on the timeline, and validate on a project that keeps it in a run.
TEST_F(BadInputCorpus, PackedTimelineBombsAreRefusedWithBoundedMemory) {
  const auto timeline = servescope::test::packed_timeline_bomb();
  const auto bomb = (dir() / "timeline-bomb.json").string();
  { std::ofstream(bomb) << timeline.dump(); }
  ASSERT_LT(fs::file_size(bomb), 400'000u) << "a bomb is small";
  const auto said = [&](const Outcome& o) {
    EXPECT_NE(o.err.find("$.packed.data"), std::string::npos) << o.err;
    EXPECT_NE(o.err.find("the packed tables declare " + std::to_string(servescope::test::kBombBatches) + " batches"),
              std::string::npos)
        << o.err;
  };
  said(refused({"export", "chrome-trace", bomb, "-o", scratch("trace.json")}, Expect{bomb, scratch("trace.json")}));
  said(refused({"validate", bomb}, bomb));
  said(refused({"info", bomb}, bomb));
  // Kept in a project's run: validate reads the run's timeline and names its place.
  auto run = nlohmann::json::parse(run_body(""));
  run["timeline"] = timeline;
  const auto project = (dir() / "project-bomb.json").string();
  { std::ofstream(project) << project_with("runs", run.dump()); }
  const auto o = refused({"validate", project}, project);
  EXPECT_NE(o.err.find("$.runs[0].body.timeline.packed.data"), std::string::npos) << o.err;
}

// With a key given twice the last one silently won.
TEST_F(BadInputCorpus, DuplicateKeysAreRefused) {
  for (const auto* name : {"duplicate_keys.json", "duplicate_keys_project.json", "duplicate_keys_cluster.json"}) {
    refused({"validate", corpus(name)}, corpus(name));
    refused({"info", corpus(name)}, corpus(name));
  }
  refused({"simulate", "-s", corpus("duplicate_keys.json"), "-d", "0.1", "--warmup", "0"},
          corpus("duplicate_keys.json"));
  const auto plan = corpus("duplicate_keys_plan.json");
  refused({"simulate", "-s", kPipelineScenario, "--plan", plan, "-d", "0.1", "--warmup", "0"}, plan);
  refused({"sweep", "-s", kPipelineScenario, "--plan", plan, "-d", "0.1"}, plan);
  accepted_with("duplicate_keys.json", R"("rate_rps": -5, )", "", {"validate", "{}"});
  accepted_with("duplicate_keys_plan.json", R"("batch": 0, )", "",
                {"simulate", "-s", kPipelineScenario, "--plan", "{}", "-d", "0.1", "--warmup", "0"});
}

}  // namespace
