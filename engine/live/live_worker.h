// A live worker (README "Live deployment"): registers one server of the cluster with the
// scheduler, runs the batches it is sent on that server's vGPU slots through a WorkerExecutor,
// reports each as it finishes, and moves pipeline feature maps to other workers as real bytes over
// its own connections. When the scheduler goes away it gives up what it held and reconnects, so a
// restarted scheduler finds its workers again.
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>

#include "engine/live/tls.h"
#include "engine/live/worker_executor.h"

namespace servescope::engine::live {

struct WorkerOptions {
  std::string token;
  std::string host = "127.0.0.1";
  std::uint16_t port = 0;
  std::string node;  // the cluster server this worker is
  // Where its feature-map listener binds (other workers send there); empty: the address its
  // connection to the scheduler leaves from, which is where the scheduler tells them to send.
  std::string feature_host;
  std::shared_ptr<const TlsContext> tls;  // mutual TLS to the scheduler and between workers
  bool insecure = false;                  // its feature-map port may be non-loopback without TLS
  std::chrono::milliseconds reconnect_every{250};
  std::chrono::milliseconds heartbeat{250};
  std::chrono::milliseconds liveness{1000};  // a scheduler silent this long is gone
};

struct WorkerStats {
  std::uint64_t sessions = 0;  // times it was welcomed
  std::uint64_t batches = 0;
  std::uint64_t feature_maps_sent = 0, feature_maps_received = 0;
  std::uint64_t feature_bytes_sent = 0, feature_bytes_received = 0;
};

class LiveWorker {
 public:
  LiveWorker(WorkerOptions options, std::unique_ptr<WorkerExecutor> executor);
  ~LiveWorker();

  // Serves until `stop` is set. Throws LiveError when the scheduler refuses this worker (a wrong
  // token, a node the cluster does not have): retrying would not help.
  void run(const std::atomic<bool>& stop);
  const WorkerStats& stats() const { return stats_; }
  void set_log(std::function<void(const std::string&)> log) { log_ = std::move(log); }

 private:
  class Session;
  WorkerOptions options_;
  std::unique_ptr<WorkerExecutor> executor_;
  WorkerStats stats_;
  std::function<void(const std::string&)> log_;
  std::string feature_address_;  // where its feature-map listener is bound
};

}  // namespace servescope::engine::live
