// The /metrics server on loopback (50 idle connections once delayed a scrape by 10 s;
// docs/protocol.md "Subscribers and metrics"): idle connections, more than it keeps open, do not
// stop a scrape from being answered; other paths get 404, another method 405, an oversized request 431, and a
// connection that never asks is closed after its deadline. Nothing here measures how fast: only
// that the answers come (within generous bounds that only catch a hang).
#include <cctype>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "engine/live/metrics_server.h"
#include "engine/live/scheduler_counters.h"
#include "tests/support/test_support.h"

namespace servescope::engine::live {
namespace {

using namespace std::chrono_literals;

// Everything the server sends until it closes, or what came within `limit`.
std::string read_until_closed(TcpStream& s, std::chrono::milliseconds limit = 10000ms) {
  std::string reply;
  const auto until = std::chrono::steady_clock::now() + limit;
  while (std::chrono::steady_clock::now() < until) {
    auto got = s.receive(65536, 500ms);
    if (!got) continue;
    if (got->empty()) break;
    reply.append(got->begin(), got->end());
  }
  return reply;
}

std::string request(std::uint16_t port, const std::string& text) {
  auto s = TcpStream::connect("127.0.0.1", port, 5000ms);
  s.send_all(std::span(reinterpret_cast<const std::uint8_t*>(text.data()), text.size()));
  return read_until_closed(s);
}

TEST(MetricsServer, AScrapeIsAnsweredWhileManyConnectionsIdle) {
  MetricsServerLimits limits;
  limits.connections = 32;
  MetricsServer server(0, "127.0.0.1", limits);
  server.publish("servescope_requests_total 42\n");
  // More idle connections than it keeps: the oldest idle ones are closed to make room.
  std::vector<TcpStream> idle;
  for (int i = 0; i < 50; ++i)
    idle.push_back(TcpStream::connect("127.0.0.1", server.port(), 5000ms));
  const auto started = std::chrono::steady_clock::now();
  const auto reply = request(server.port(), "GET /metrics HTTP/1.1\r\nHost: localhost\r\n\r\n");
  RecordProperty(
      "scrape_ms_with_50_idle",
      std::to_string(
          std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now() - started).count()));
  EXPECT_TRUE(reply.starts_with("HTTP/1.1 200 OK\r\n")) << reply;
  EXPECT_NE(reply.find("Content-Type: text/plain; version=0.0.4"), std::string::npos) << reply;
  EXPECT_TRUE(reply.ends_with("\r\n\r\nservescope_requests_total 42\n")) << reply;
  // The first idle connection was among those closed for newcomers.
  const auto first = idle.front().receive(16, 10000ms);
  ASSERT_TRUE(first);
  EXPECT_TRUE(first->empty());
}

// A flood that connects right after a scraper, and reconnects as soon as it is closed, once
// pushed the scraper out before its request was read: the newcomers of one burst of accepts
// closed each other unheard. Now none is closed before its grace, and the flood waits instead.
TEST(MetricsServer, AScraperIsHeardBeforeAFloodBehindItCanPushItOut) {
  MetricsServerLimits limits;
  limits.connections = 4;
  limits.grace = 60s;  // far longer than this test, under any load
  MetricsServer server(0, "127.0.0.1", limits);
  server.publish("a 1\n");
  auto scraper = TcpStream::connect("127.0.0.1", server.port(), 5000ms);
  std::vector<TcpStream> flood;
  for (int i = 0; i < 20; ++i)
    flood.push_back(TcpStream::connect("127.0.0.1", server.port(), 5000ms));
  const std::string get = "GET /metrics HTTP/1.1\r\n\r\n";
  scraper.send_all(std::span(reinterpret_cast<const std::uint8_t*>(get.data()), get.size()));
  const auto reply = read_until_closed(scraper);
  EXPECT_TRUE(reply.starts_with("HTTP/1.1 200 OK")) << reply;
  // Its place went to one of the flood, which is answered in turn: nobody was closed unheard.
  for (auto& s : flood)
    s.send_all(std::span(reinterpret_cast<const std::uint8_t*>(get.data()), get.size()));
  for (auto& s : flood)
    EXPECT_TRUE(read_until_closed(s).starts_with("HTTP/1.1 200 OK"));
}

TEST(MetricsServer, AnswersInPiecesOtherPathsAndOversizedRequests) {
  MetricsServer server(0, "127.0.0.1");
  server.publish("a 1\n");
  {  // a request that arrives in pieces, then the newest text
    auto s = TcpStream::connect("127.0.0.1", server.port(), 5000ms);
    const std::string part1 = "GET /metr", part2 = "ics?x=1 HTTP/1.1\r\n\r\n";
    s.send_all(std::span(reinterpret_cast<const std::uint8_t*>(part1.data()), part1.size()));
    std::this_thread::sleep_for(50ms);
    server.publish("a 2\n");
    s.send_all(std::span(reinterpret_cast<const std::uint8_t*>(part2.data()), part2.size()));
    const auto reply = read_until_closed(s);
    EXPECT_TRUE(reply.starts_with("HTTP/1.1 200 OK")) << reply;
    EXPECT_TRUE(reply.ends_with("a 2\n")) << reply;
  }
  EXPECT_TRUE(request(server.port(), "GET /metricsx HTTP/1.1\r\n\r\n").starts_with("HTTP/1.1 404")) << "";
  // Another method on /metrics is 405 (saying what is allowed), not 404: the path is there.
  const auto post = request(server.port(), "POST /metrics HTTP/1.1\r\n\r\n");
  EXPECT_TRUE(post.starts_with("HTTP/1.1 405 Method Not Allowed")) << post;
  EXPECT_NE(post.find("\r\nAllow: GET\r\n"), std::string::npos) << post;
  EXPECT_TRUE(request(server.port(), "DELETE /metrics?x HTTP/1.1\r\n\r\n").starts_with("HTTP/1.1 405"));
  EXPECT_TRUE(request(server.port(), "POST /other HTTP/1.1\r\n\r\n").starts_with("HTTP/1.1 404"));
  EXPECT_TRUE(request(server.port(), "GET /metrics HTTP/1.1\r\nX: " + std::string(20000, 'x') + "\r\n\r\n")
                  .starts_with("HTTP/1.1 431"));
}

TEST(MetricsServer, AConnectionThatNeverAsksIsClosedAfterItsDeadline) {
  MetricsServerLimits limits;
  limits.deadline = 200ms;
  MetricsServer server(0, "127.0.0.1", limits);
  auto s = TcpStream::connect("127.0.0.1", server.port(), 5000ms);
  const auto got = s.receive(16, 10000ms);  // a generous bound: only a server that never closes fails
  ASSERT_TRUE(got);
  EXPECT_TRUE(got->empty());
}

// A run of one model on one slot, and counters sized for it.
SimulationResult one_slot_layout() {
  SimulationResult layout;
  layout.models = {"m"};
  layout.gpus = {"g"};
  return layout;
}
SchedulerCounters counters_for(const SimulationResult& layout) {
  SchedulerCounters counters;
  counters.arrivals = counters.on_time = counters.late = std::vector<std::uint64_t>(layout.models.size(), 0);
  counters.dropped.resize(layout.models.size());
  counters.batches = std::vector<std::uint64_t>(layout.gpus.size(), 0);
  counters.busy_ns = std::vector<std::int64_t>(layout.gpus.size(), 0);
  return counters;
}

// A summary is its quantiles, _sum and _count (Prometheus's text format): rate(_sum) / rate(_count)
// is the mean a dashboard plots, and it was missing. The flood and recording counters are there.
TEST(SchedulerCounters, TheOverheadSummaryHasItsSumAndTheLimitsTheirCounts) {
  const auto layout = one_slot_layout();
  auto counters = counters_for(layout);
  counters.dispatch_overhead.add(Duration::microseconds(1000));
  counters.dispatch_overhead.add(Duration::microseconds(3000));
  counters.batch_hop.add(Duration::microseconds(500));
  counters.commands_limited = 7;
  counters.plan_switches_limited = 2;
  counters.recording_failed = true;
  const auto text = prometheus_text(counters, layout, {});
  EXPECT_NE(text.find("\nservescope_dispatch_overhead_seconds_sum 0.004\n"), std::string::npos) << text;
  EXPECT_NE(text.find("\nservescope_dispatch_overhead_seconds_count 2\n"), std::string::npos) << text;
  // The loop's hops (engine/sim/live_hops.h), as summaries alike.
  EXPECT_NE(text.find("\nservescope_batch_hop_seconds_sum 0.0005\n"), std::string::npos) << text;
  EXPECT_NE(text.find("\nservescope_transfer_overhead_seconds_count 0\n"), std::string::npos) << text;
  EXPECT_NE(text.find("\nservescope_control_commands_total{outcome=\"limited\"} 7\n"), std::string::npos) << text;
  EXPECT_NE(text.find("\nservescope_plan_switches_limited_total 2\n"), std::string::npos) << text;
  EXPECT_NE(text.find("\nservescope_recording_failed 1\n"), std::string::npos) << text;
}

// The Grafana dashboard shipped in docs/deploy/ asks only for what the scheduler exports, so a
// renamed metric cannot leave a panel silently empty.
TEST(MetricsDashboard, NamesOnlyMetricsTheSchedulerExports) {
  const char* source = std::getenv("SERVESCOPE_SOURCE_DIR");
  if (!source) GTEST_SKIP() << "SERVESCOPE_SOURCE_DIR is not set (ctest sets it)";
  const auto layout = one_slot_layout();
  const auto counters = counters_for(layout);
  const auto text = prometheus_text(counters, layout, {});
  // Metric names in a text: servescope_ and lower-case letters or underscores. (No std::regex:
  // GCC 12 under ASan warns inside it, and warnings are errors.)
  const auto names_in = [](const std::string& t) {
    std::vector<std::string> out;
    for (auto at = t.find("servescope_"); at != std::string::npos; at = t.find("servescope_", at + 1)) {
      auto end = at;
      while (end < t.size() && (std::islower(static_cast<unsigned char>(t[end])) || t[end] == '_'))
        ++end;
      out.push_back(t.substr(at, end - at));
      at = end - 1;
    }
    return out;
  };
  std::set<std::string> exported;
  std::istringstream lines(text);
  for (std::string line; std::getline(lines, line);)
    if (line.starts_with("servescope_")) exported.insert(names_in(line).front());
  const auto dashboard =
      nlohmann::json::parse(servescope::test::read_file(std::string(source) + "/docs/deploy/grafana-dashboard.json"));
  int expressions = 0;
  for (const auto& panel : dashboard.at("panels"))
    for (const auto& target : panel.at("targets")) {
      ++expressions;
      for (const auto& name : names_in(target.at("expr").get<std::string>()))
        EXPECT_TRUE(exported.contains(name)) << name << " in panel " << panel.at("title");
    }
  EXPECT_GT(expressions, 10);
}

}  // namespace
}  // namespace servescope::engine::live
