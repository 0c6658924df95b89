// The live deployment across hosts (README "Live deployment"; docs/deploy.md): the scheduler, two
// workers and a load generator, each on a "host" of its own (network namespaces joined by a
// bridge, tests/live/network_hosts.h), every connection mutual TLS with the certificates `live
// gen-certs` writes. A PPipe plan whose feature maps cross hosts, a Symphony run, a link cut for
// 2 s (the worker is lost, every request reconciled, it rejoins), and strangers with a plain
// connection, another CA's certificate or an expired one, each refused with the reason on both
// sides. Skipped, with the reason, where namespaces cannot be made (not root, no bridge). As in
// the other live tests, time bounds are generous liveness bounds, never claims of speed.
#include <algorithm>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "engine/live/certificates.h"
#include "tests/live/live_deployment.h"
#include "tests/live/network_hosts.h"

using servescope::test::ChildProcess;
using servescope::test::NetworkHosts;
using servescope::test::TempDir;
using namespace servescope::test::live_deployment;

namespace {

constexpr int kScheduler = 1, kLoadgen = 4;

// The built-in demo `project` with its cluster cut to two servers (`nodes`) and one workload.
std::string two_server_scenario(const TempDir& dir, const std::string& project, const nlohmann::json& nodes,
                                const std::string& workload, double rate_rps) {
  auto doc = nlohmann::json::parse(
      servescope::test::read_file(std::string(SERVESCOPE_RESOURCES_DIR) + "/projects/" + project));
  auto& scenario = doc["scenario"];
  scenario["cluster"]["nodes"] = nodes;
  auto workloads = nlohmann::json::array();
  for (auto w : scenario["workloads"])
    if (w["name"] == workload) {
      w["rate_rps"] = rate_rps;
      workloads.push_back(w);
    }
  scenario["workloads"] = workloads;
  return dir.write(project, doc.dump());
}

class AcrossHosts : public ::testing::Test {
 protected:
  void SetUp() override {
    if (const auto why = NetworkHosts::unavailable()) GTEST_SKIP() << "no network namespaces here: " << *why;
    hosts_ = std::make_unique<NetworkHosts>(4);
    ASSERT_TRUE(hosts_->ok()) << hosts_->error();
    certs_ = dir_.path() / "certs";
    ChildProcess gen(
        SERVESCOPE_CLI,
        {"live", "gen-certs", certs_.string(), "--address", NetworkHosts::address(1), "--address",
         NetworkHosts::address(2), "--address", NetworkHosts::address(3), "--address", NetworkHosts::address(4)},
        dir_.path() / "gen.out", dir_.path() / "gen.err");
    ASSERT_EQ(gen.wait_for(60s), 0) << gen.err();
    token_ = dir_.write("token", std::string(kToken) + "\n");
    std::filesystem::permissions(token_, std::filesystem::perms::owner_read | std::filesystem::perms::owner_write);
  }

  std::vector<std::string> tls(const std::string& role) const {
    return {"--tls-cert", (certs_ / (role + ".pem")).string(), "--tls-key", (certs_ / (role + ".key")).string(),
            "--tls-ca",   (certs_ / "ca.pem").string()};
  }

  // The scheduler on host 1 and a worker per server it waits for on hosts 2 and 3, all joined.
  void start(const std::vector<std::string>& scheduler_args) {
    const auto port_file = dir_.path() / "port";
    std::vector<std::string> args{"live",         "scheduler", "--listen",    NetworkHosts::address(kScheduler) + ":0",
                                  "--token-file", token_,      "--port-file", port_file.string()};
    args.insert(args.end(), scheduler_args.begin(), scheduler_args.end());
    const auto t = tls("scheduler");
    args.insert(args.end(), t.begin(), t.end());
    scheduler_ =
        hosts_->start(kScheduler, SERVESCOPE_CLI, args, dir_.path() / "scheduler.out", dir_.path() / "scheduler.err");
    ASSERT_TRUE(scheduler_->wait_for_log("waiting for workers:", 30s)) << scheduler_->err();
    // The port file is written once the scheduler listens, after its first log lines.
    for (int i = 0; i < 6000 && servescope::test::read_file(port_file).find('\n') == std::string::npos; ++i)
      std::this_thread::sleep_for(5ms);
    port_ = std::atoi(servescope::test::read_file(port_file).c_str());
    ASSERT_NE(port_, 0) << scheduler_->err();
    std::istringstream names(after(scheduler_->err(), "waiting for workers:"));
    for (std::string n; names >> n;)
      nodes_.push_back(n);
    ASSERT_EQ(nodes_.size(), 2u) << scheduler_->err();
    const auto& nodes = nodes_;
    for (std::size_t i = 0; i < nodes.size(); ++i) {
      std::vector<std::string> w{"live", "worker", "--connect", endpoint(), "--token-file", token_, "--node", nodes[i]};
      const auto wt = tls("worker");
      w.insert(w.end(), wt.begin(), wt.end());
      workers_.push_back(hosts_->start(static_cast<int>(i) + 2, SERVESCOPE_CLI, w,
                                       dir_.path() / ("worker-" + nodes[i] + ".out"),
                                       dir_.path() / ("worker-" + nodes[i] + ".err")));
    }
    ASSERT_TRUE(scheduler_->wait_for_log(" joined", 30s, static_cast<int>(nodes.size()))) << scheduler_->err();
  }

  std::string endpoint() const { return NetworkHosts::address(kScheduler) + ":" + std::to_string(port_); }

  // A load generator on `host` with `more` arguments (TLS files: the loadgen role's unless given).
  std::unique_ptr<ChildProcess> loadgen(int host, double rate, double seconds, std::vector<std::string> more = {},
                                        const std::string& name = "loadgen") const {
    // A stranger that names its own --ready-timeout (one refused for good) keeps it.
    const bool own_limit = std::ranges::find(more, "--ready-timeout") != more.end();
    auto args = loadgen_args(endpoint(), rate, seconds, own_limit ? std::nullopt : std::optional(kStartupLimit));
    args.insert(args.end(), {"--token-file", token_});
    if (more.empty()) more = tls("loadgen");
    args.insert(args.end(), more.begin(), more.end());
    return hosts_->start(host, SERVESCOPE_CLI, args, dir_.path() / (name + ".out"), dir_.path() / (name + ".err"));
  }

  nlohmann::json load(double rate, double seconds) const {
    auto lg = loadgen(kLoadgen, rate, seconds);
    return finished_load(*lg, load_report_limit(seconds));
  }

  nlohmann::json stop_scheduler() {
    scheduler_->signal(SIGTERM);
    EXPECT_EQ(scheduler_->wait_for(30s), 0) << scheduler_->err();
    return nlohmann::json::parse(scheduler_->out(), nullptr, false);
  }

  // Stops worker `i` and returns its log (its closing summary included).
  std::string stop_worker(std::size_t i) {
    workers_[i]->signal(SIGTERM);
    EXPECT_EQ(workers_[i]->wait_for(30s), 0) << workers_[i]->err();
    return workers_[i]->err();
  }

  TempDir dir_;
  std::unique_ptr<NetworkHosts> hosts_;
  std::filesystem::path certs_;
  std::string token_;
  std::unique_ptr<ChildProcess> scheduler_;
  std::vector<std::unique_ptr<ChildProcess>> workers_;
  std::vector<std::string> nodes_;  // the servers, on hosts 2 and 3
  int port_ = 0;
};

const nlohmann::json kPpipeNodes = nlohmann::json::parse(R"([
  {"name": "v100", "gpu": "V100", "gpu_count": 2, "count": 1, "nic_up_gbps": 6, "nic_down_gbps": 6},
  {"name": "p4", "gpu": "P4", "gpu_count": 1, "count": 1, "nic_up_gbps": 6, "nic_down_gbps": 6}])");
const nlohmann::json kSymphonyNodes = nlohmann::json::parse(
    R"([{"name": "a100", "gpu": "A100", "gpu_count": 8, "count": 2, "nic_up_gbps": 100, "nic_down_gbps": 100}])");

TEST_F(AcrossHosts, PpipeFeatureMapsCrossHostsOverTls) {
  const auto scenario = two_server_scenario(dir_, "ppipe-demo.json", kPpipeNodes, "vgg16", 150);
  const auto plan = (dir_.path() / "plan.json").string();
  ChildProcess planner(SERVESCOPE_CLI, {"plan", "-s", scenario, "--system", "ppipe", "--partitions", "2", "-o", plan},
                       dir_.path() / "plan.out", dir_.path() / "plan.err");
  ASSERT_EQ(planner.wait_for(120s), 0) << planner.err();
  start({"-s", scenario, "--plan", plan, "--warmup", "0"});
  EXPECT_NE(scheduler_->err().find("(TLS)"), std::string::npos) << scheduler_->err();
  const auto load = this->load(150, 3);
  const auto report = stop_scheduler();
  expect_reconciled(load, report);
  EXPECT_GT(load["on_time"].get<std::uint64_t>() + load["late"].get<std::uint64_t>(), 0u) << load.dump(2);
  // The pipeline runs its first blocks on host 2 and the rest on host 3: the maps crossed.
  const auto sender = stop_worker(0), receiver = stop_worker(1);
  EXPECT_NE(sender.find("feature maps arrive at " + NetworkHosts::address(2) + ":"), std::string::npos) << sender;
  const auto sent = after(sender, "sent ", ' ');
  const auto received = after(receiver, "bytes), received ");
  ASSERT_FALSE(sent.empty()) << sender;
  ASSERT_FALSE(received.empty()) << receiver;
  EXPECT_GT(std::stoull(sent), 0u) << sender;
  EXPECT_GT(std::stoull(received), 0u) << receiver;
  ::testing::Test::RecordProperty("feature_maps_sent", sent);
}

TEST_F(AcrossHosts, SymphonyServesFromAnotherHost) {
  const auto scenario = two_server_scenario(dir_, "demo.json", kSymphonyNodes, "mixed-37", 1000);
  start({"-s", scenario, "-w", "mixed-37", "--system", "symphony", "--warmup", "0"});
  const auto load = this->load(1000, 3);
  const auto report = stop_scheduler();
  expect_reconciled(load, report);
  EXPECT_GT(load["on_time"].get<std::uint64_t>() + load["late"].get<std::uint64_t>(), 0u) << load.dump(2);
}

TEST_F(AcrossHosts, ACutLinkLosesTheWorkerAndItRejoins) {
  const auto scenario = two_server_scenario(dir_, "demo.json", kSymphonyNodes, "mixed-37", 500);
  start({"-s", scenario, "-w", "mixed-37", "--system", "symphony", "--warmup", "0"});
  auto lg = loadgen(kLoadgen, 500, 8);
  std::this_thread::sleep_for(2s);
  ASSERT_TRUE(hosts_->set_link(3, false)) << hosts_->error();
  std::this_thread::sleep_for(2s);
  ASSERT_TRUE(hosts_->set_link(3, true)) << hosts_->error();
  EXPECT_TRUE(scheduler_->wait_for_log("worker of a100-1 lost", 10s)) << scheduler_->err();
  EXPECT_TRUE(scheduler_->wait_for_log("worker a100-1 joined", 20s, 2)) << scheduler_->err();
  const auto load = finished_load(*lg, 70s);
  const auto report = stop_scheduler();
  expect_reconciled(load, report);
  EXPECT_GE(report["workers_lost"].get<int>(), 1) << report.dump(2);
  EXPECT_GE(report["workers_joined"].get<int>(), 3) << report.dump(2);
}

TEST_F(AcrossHosts, StrangersAreRefusedWithTheReasonOnBothSides) {
  const auto scenario = two_server_scenario(dir_, "demo.json", kSymphonyNodes, "mixed-37", 500);
  start({"-s", scenario, "-w", "mixed-37", "--system", "symphony", "--warmup", "0"});
  // Each from a host of its own: the scheduler logs a source's first refusal, then counts.
  const auto other = dir_.path() / "other";
  servescope::engine::live::write_deployment_certificates(other, {});
  servescope::engine::live::PemPair ca{servescope::test::read_file(certs_ / "ca.pem"),
                                       servescope::test::read_file(certs_ / "ca.key")};
  servescope::engine::live::CertificateSpec spec;
  spec.common_name = "servescope-loadgen";
  spec.not_before = std::chrono::system_clock::now() - std::chrono::hours(48);
  spec.not_after = std::chrono::system_clock::now() - std::chrono::hours(24);
  const auto expired = servescope::engine::live::issue_certificate(ca, spec);
  const auto expired_cert = dir_.write("expired.pem", expired.cert),
             expired_key = dir_.write("expired.key", expired.key);
  struct Stranger {
    int host;
    std::vector<std::string> args;
    std::string client_says, scheduler_says;
  };
  const std::vector<Stranger> strangers = {
      {4,
       {"--ready-timeout", "2"},
       "a plain-TCP client, and this side requires TLS",
       "refused a connection from " + NetworkHosts::address(4) + ": a plain-TCP client"},
      {2,
       {"--tls-cert", (other / "loadgen.pem").string(), "--tls-key", (other / "loadgen.key").string(), "--tls-ca",
        (certs_ / "ca.pem").string()},
       "the other side refused our certificate",
       "refused a connection from " + NetworkHosts::address(2) +
           ": TLS: the other side's certificate is not accepted: unable to get local issuer certificate"},
      {3,
       {"--tls-cert", expired_cert, "--tls-key", expired_key, "--tls-ca", (certs_ / "ca.pem").string()},
       "the other side refused our certificate",
       "refused a connection from " + NetworkHosts::address(3) +
           ": TLS: the other side's certificate is not accepted: certificate has expired"}};
  for (const auto& s : strangers) {
    auto lg = loadgen(s.host, 10, 1, s.args, "stranger-" + std::to_string(s.host));
    EXPECT_NE(lg->wait_for(60s), 0);
    EXPECT_NE(lg->err().find(s.client_says), std::string::npos) << lg->err();
    EXPECT_TRUE(scheduler_->wait_for_log(s.scheduler_says, 10s)) << scheduler_->err();
  }
  // And the deployment still serves its own.
  expect_reconciled(load(200, 1), nlohmann::json());
  stop_scheduler();
}

}  // namespace
