// The scheduler's /metrics endpoint (Prometheus text over HTTP), served so that no scraper can
// hold up another (50 idle connections once delayed a scrape by 10 s; docs/protocol.md
// "Subscribers and metrics"): one thread, one poll() loop over the listener and every open
// connection, each connection with a deadline and a cap on its request, and a cap on open
// connections that closes the oldest idle one. It answers `GET /metrics` with the text last
// published, anything else with 404, and closes after each answer (no keep-alive: Prometheus
// scrapes every few seconds, a connection each is cheap).
//
// Why not a library: Debian bookworm packages no prometheus-cpp, and its cpp-httplib (0.11)
// serves each connection on a pool thread with blocking reads, so as many idle connections as
// the pool has threads would hold every scrape up again. One GET needs no more than this loop.
#pragma once

#include <atomic>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <mutex>
#include <string>
#include <thread>

#include "engine/live/tcp_socket.h"

namespace servescope::engine::live {

struct MetricsServerLimits {
  std::size_t connections = 32;  // open at once; the oldest idle one goes for a newcomer
  // How long a connection may stay before it can be closed for a newcomer. Without it, a flood
  // that reconnects at once pushed a scraper out before its request, sent right after connecting,
  // was read: the newcomers of one burst of accepts closed each other unheard.
  std::chrono::milliseconds grace{500};
  std::size_t request_bytes = 8192;          // a request head larger than this is answered 431
  std::chrono::milliseconds deadline{5000};  // from accept to the answer sent; then closed
};

class MetricsServer {
 public:
  // Listens at once (port 0: any free port); throws LiveError when it cannot.
  MetricsServer(std::uint16_t port, const std::string& address, MetricsServerLimits limits = {});
  ~MetricsServer();
  MetricsServer(const MetricsServer&) = delete;
  MetricsServer& operator=(const MetricsServer&) = delete;

  std::uint16_t port() const { return listener_.port(); }
  // The body of every answer to GET /metrics from now on.
  void publish(std::string text);

 private:
  void serve();

  TcpListener listener_;
  MetricsServerLimits limits_;
  std::mutex mutex_;
  std::string text_;
  std::atomic<bool> stop_{false};
  std::thread thread_;
};

}  // namespace servescope::engine::live
