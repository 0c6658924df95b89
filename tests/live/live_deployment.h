// What the live deployment tests share: a scheduler with its workers on an ephemeral port, a
// GUI-like follower, a load generator run to its end, and readers of logs, metrics and replies.
// The daemons are real servescope-cli processes (tests/support/child_process.h).
#pragma once

#include <chrono>
#include <filesystem>
#include <gtest/gtest.h>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <set>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "engine/live/handshake.h"
#include "engine/live/live_subscriber.h"
#include "engine/live/tcp_socket.h"
#include "engine/live/wire_format.h"
#include "tests/support/child_process.h"
#include "tests/support/test_support.h"

namespace servescope::test::live_deployment {

namespace live = servescope::engine::live;
using namespace std::chrono_literals;

// At least 16 bytes: the daemons refuse shorter tokens (docs/protocol.md "Frames"). Daemons read
// it from a file (--token-file), so it is never on their command line; clients in the test get it
// as is.
constexpr const char* kToken = "test-token-7f3a-2c91-live";
inline const std::string kDemo = "builtin:projects/demo.json";
inline const std::string kPpipeDemo = "builtin:projects/ppipe-demo.json";

// The text after `prefix` in `text` up to `stop` (empty when `prefix` is not there). Tests read
// the daemons' logs and metrics with it (std::regex trips GCC 12's maybe-uninitialized under ASan).
inline std::string after(const std::string& text, const std::string& prefix, char stop = '\n') {
  const auto at = text.find(prefix);
  if (at == std::string::npos) return {};
  const auto from = at + prefix.size();
  return text.substr(from, text.find(stop, from) - from);
}

// How long a test waits for daemons to start and join. A wait ends as soon as they are there; the
// limit is for a loaded machine, where fourteen sanitized workers beside other tests took longer
// than the load generator's own 10 s to join (2026-11-28). What a test checks is never how fast
// a deployment starts.
constexpr std::chrono::seconds kStartupLimit{60};

// `servescope-cli` arguments of a load generator sending `rate` requests/s to `endpoint` for
// `seconds`, reporting as JSON, waiting up to `ready_limit` for the deployment (none: its
// default); the token and anything else are the caller's to add.
inline std::vector<std::string> loadgen_args(const std::string& endpoint, double rate, double seconds,
                                             std::optional<std::chrono::seconds> ready_limit = kStartupLimit) {
  std::vector<std::string> args{"--json",
                                "live",
                                "loadgen",
                                "--connect",
                                endpoint,
                                "--rate",
                                std::to_string(rate),
                                "--duration",
                                std::to_string(seconds)};
  if (ready_limit) args.insert(args.end(), {"--ready-timeout", std::to_string(ready_limit->count())});
  return args;
}

// PPipe's plan of the ppipe-demo scenario in two partitions, written into `dir`.
inline std::string ppipe_plan(const TempDir& dir) {
  const auto plan = (dir.path() / "plan.json").string();
  ChildProcess planner(SERVESCOPE_CLI, {"plan", "-s", kPpipeDemo, "--system", "ppipe", "--partitions", "2", "-o", plan},
                       dir.path() / "plan.out", dir.path() / "plan.err");
  EXPECT_EQ(planner.wait_for(std::chrono::seconds(120)), 0) << planner.err();
  return plan;
}

// How long a load generator of `seconds` of load may take to report: its own wait for the
// deployment (kStartupLimit), the load, and a minute more for the outcomes.
inline std::chrono::milliseconds load_report_limit(double seconds) {
  return kStartupLimit + 60s + std::chrono::milliseconds(static_cast<int>(seconds * 1000));
}

// A load generator's report once it ends within `limit`. Its exit status says whether the
// deployment lost requests (3: dropped as worker-lost, or lost with the scheduler): 0 exactly
// when it lost none.
inline nlohmann::json finished_load(ChildProcess& lg, std::chrono::milliseconds limit = load_report_limit(0)) {
  const auto status = lg.wait_for(limit);
  auto load = nlohmann::json::parse(lg.out(), nullptr, false);
  EXPECT_TRUE(load.is_object()) << lg.err();
  if (!load.is_object()) return load;
  const bool lost = load["lost"].get<std::uint64_t>() > 0;
  EXPECT_EQ(status, lost ? 3 : 0) << lg.err();
  EXPECT_EQ(load["lost"].get<std::uint64_t>(), load["dropped_by_reason"]["worker-lost"].get<std::uint64_t>() +
                                                   load["scheduler_lost"].get<std::uint64_t>());
  return load;
}

// Waits until a load generator sends, that is until the deployment was ready for it. A test that
// takes a worker or the scheduler away must wait for this first: a load generator that connected
// only after a worker went waited for the deployment instead, and reported it never ready (seen
// in the sanitizer run, with four deployments starting at once).
inline void expect_sending(const ChildProcess& lg) {
  EXPECT_TRUE(lg.wait_for_log("sending ", kStartupLimit)) << lg.err();
}

// A scheduler and one worker per server it waits for, on an ephemeral port.
class Deployment {
 public:
  // `worker_args` go to every worker (e.g. its executor). Without `start_workers` the test runs
  // the workers itself (nodes() names them).
  Deployment(const TempDir& dir, std::vector<std::string> scheduler_args, std::uint16_t port = 0,
             std::vector<std::string> worker_args = {}, bool start_workers = true)
      : dir_(dir),
        args_(std::move(scheduler_args)),
        worker_args_(std::move(worker_args)),
        token_file_(dir.write("token", std::string(kToken) + "\n")) {
    std::filesystem::permissions(token_file_, std::filesystem::perms::owner_read | std::filesystem::perms::owner_write);
    start_scheduler(port);
    std::istringstream names(after(scheduler_->err(), "waiting for workers:"));
    for (std::string n; names >> n;)
      nodes_.push_back(n);
    if (!start_workers) return;
    for (const auto& n : nodes_)
      start_worker(n);
    EXPECT_TRUE(scheduler_->wait_for_log("joined", kStartupLimit, static_cast<int>(nodes_.size())))
        << scheduler_->err();
  }

  void start_scheduler(std::uint16_t port) {
    const auto port_file = dir_.path() / ("port-" + std::to_string(++schedulers_));
    std::vector<std::string> args{"live",           "scheduler", "--listen",    "127.0.0.1:" + std::to_string(port),
                                  "--token-file",   token_file_, "--port-file", port_file.string(),
                                  "--metrics-port", "0"};
    args.insert(args.end(), args_.begin(), args_.end());
    scheduler_ = std::make_unique<ChildProcess>(SERVESCOPE_CLI, args, dir_.path() / "scheduler.out",
                                                dir_.path() / ("scheduler-" + std::to_string(schedulers_) + ".err"));
    for (const auto until = std::chrono::steady_clock::now() + kStartupLimit;
         servescope::test::read_file(port_file).find('\n') == std::string::npos &&
         std::chrono::steady_clock::now() < until;)
      std::this_thread::sleep_for(5ms);
    std::istringstream ports(servescope::test::read_file(port_file));
    ports >> port_ >> metrics_port_;
    ASSERT_NE(port_, 0) << scheduler_->err();
  }

  ChildProcess& start_worker(const std::string& node) {
    std::vector<std::string> args{"live",         "worker",    "--connect", endpoint(),
                                  "--token-file", token_file_, "--node",    node};
    args.insert(args.end(), worker_args_.begin(), worker_args_.end());
    workers_[node] = std::make_unique<ChildProcess>(SERVESCOPE_CLI, args, dir_.path() / ("worker-" + node + ".out"),
                                                    dir_.path() / ("worker-" + node + ".err"));
    return *workers_[node];
  }

  // With the deployment's token unless `token` names another (given with --token, on the command line).
  std::unique_ptr<ChildProcess> start_loadgen(double rate, double seconds, const std::string& token = {},
                                              std::vector<std::string> more = {}) const {
    auto args = loadgen_args(endpoint(), rate, seconds);
    args.insert(args.end(), {token.empty() ? "--token-file" : "--token", token.empty() ? token_file_ : token});
    args.insert(args.end(), more.begin(), more.end());
    return std::make_unique<ChildProcess>(SERVESCOPE_CLI, args, dir_.path() / "loadgen.out",
                                          dir_.path() / "loadgen.err");
  }

  // Runs the load generator to its end and returns its report.
  nlohmann::json load(double rate, double seconds) const {
    auto lg = start_loadgen(rate, seconds);
    return finished_load(*lg, load_report_limit(seconds));
  }

  std::string endpoint() const { return "127.0.0.1:" + std::to_string(port_); }
  const std::string& token_file() const { return token_file_; }
  std::uint16_t port() const { return port_; }
  std::uint16_t metrics_port() const { return metrics_port_; }
  ChildProcess& scheduler() { return *scheduler_; }
  ChildProcess& worker(const std::string& node) { return *workers_.at(node); }
  const std::vector<std::string>& nodes() const { return nodes_; }

  // Stops the scheduler with SIGTERM and returns its closing report.
  nlohmann::json stop_scheduler() {
    scheduler_->signal(SIGTERM);
    EXPECT_EQ(scheduler_->wait_for(30s), 0) << scheduler_->err();
    return nlohmann::json::parse(scheduler_->out(), nullptr, false);
  }

 private:
  const TempDir& dir_;
  std::vector<std::string> args_, worker_args_;
  std::string token_file_;
  int schedulers_ = 0;
  std::unique_ptr<ChildProcess> scheduler_;
  std::map<std::string, std::unique_ptr<ChildProcess>> workers_;
  std::vector<std::string> nodes_;
  std::uint16_t port_ = 0, metrics_port_ = 0;
};

// Every request the load generator sent ended, and the scheduler counted the same requests.
inline void expect_reconciled(const nlohmann::json& load, const nlohmann::json& scheduler) {
  ASSERT_TRUE(load.is_object());
  EXPECT_TRUE(load["reconciled"].get<bool>()) << load.dump(2);
  EXPECT_EQ(load["no_outcome"], 0);
  EXPECT_EQ(load["sent"].get<std::uint64_t>(),
            load["on_time"].get<std::uint64_t>() + load["late"].get<std::uint64_t>() +
                load["dropped"].get<std::uint64_t>() + load["scheduler_lost"].get<std::uint64_t>());
  if (scheduler.is_object()) {
    EXPECT_EQ(scheduler["outstanding"], 0) << scheduler.dump(2);
    EXPECT_EQ(scheduler["requests"].get<std::uint64_t>(), scheduler["finished"].get<std::uint64_t>());
    if (load["scheduler_lost"] == 0) {
      EXPECT_EQ(scheduler["requests"], load["sent"]);
    }
  }
}

// A GUI-like subscriber following the deployment on a thread of its own, as the Live tab does.
struct Follower {
  explicit Follower(std::uint16_t port) : subscriber(options(port)), thread([this] { subscriber.run(stopping); }) {}
  ~Follower() { stop(); }
  void stop() {
    stopping = true;
    if (thread.joinable()) thread.join();
  }
  static live::SubscriberOptions options(std::uint16_t port) {
    live::SubscriberOptions o;
    o.port = port;
    o.token = kToken;
    return o;
  }
  live::LiveSubscriber subscriber;
  std::atomic<bool> stopping{false};
  std::thread thread;
};

// Everything the other side sends until it closes (or is silent for 3 s).
inline std::string read_until_closed(live::TcpStream& s) {
  std::string reply;
  for (;;) {
    auto got = s.receive(65536, 3000ms);
    if (!got || got->empty()) break;
    reply.append(got->begin(), got->end());
  }
  return reply;
}

inline std::string http_get(std::uint16_t port, const std::string& path) {
  auto s = live::TcpStream::connect("127.0.0.1", port, 2000ms);
  const std::string req = "GET " + path + " HTTP/1.1\r\nHost: localhost\r\n\r\n";
  s.send_all(std::span(reinterpret_cast<const std::uint8_t*>(req.data()), req.size()));
  return read_until_closed(s);
}

// The load generator's --output CSV holds one row per request sent, each id once, and its
// outcomes add up to the report's counts.
inline void expect_csv_matches(const std::string& csv, const nlohmann::json& load) {
  std::istringstream in(servescope::test::read_file(csv));
  std::string line;
  std::getline(in, line);
  EXPECT_EQ(line, "id,model,sent_us,outcome,reason,latency_us");
  std::map<std::string, std::uint64_t> outcomes;
  std::set<std::uint64_t> ids;
  std::uint64_t rows = 0;
  while (std::getline(in, line)) {
    ++rows;
    std::istringstream fields(line);
    std::string id, model, sent, outcome;
    std::getline(fields, id, ',');
    std::getline(fields, model, ',');
    std::getline(fields, sent, ',');
    std::getline(fields, outcome, ',');
    ids.insert(std::stoull(id));
    ++outcomes[outcome];
  }
  EXPECT_EQ(rows, load["sent"].get<std::uint64_t>());
  EXPECT_EQ(ids.size(), rows);
  if (!ids.empty()) {
    EXPECT_EQ(*ids.rbegin(), rows - 1);
  }
  for (const auto* outcome : {"on_time", "late", "dropped", "scheduler_lost", "no_outcome"})
    EXPECT_EQ(outcomes[outcome], load[outcome].get<std::uint64_t>()) << outcome;
}

}  // namespace servescope::test::live_deployment
