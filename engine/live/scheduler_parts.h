// What the live scheduler's source files share and its public header keeps to itself: one
// connection (a worker, a load generator or a GUI subscriber), and the check that a prepared
// system can run on live workers.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "engine/live/connection.h"
#include "engine/live/handshake.h"
#include "engine/live/live_scheduler.h"
#include "engine/live/messages.h"

namespace servescope::engine::live {

struct LiveScheduler::Peer {
  std::uint64_t id = 0;
  std::unique_ptr<Connection> conn;
  std::string source;  // its address
  bool welcomed = false;
  bool closed = false;
  Hello hello;
  std::uint32_t server = UINT32_MAX;  // a worker's
  std::string feature_host;
  std::uint16_t feature_port = 0;
  std::vector<ClientOutcome> outcomes;  // a load generator's, not yet sent
};

// What live workers cannot do yet: preempt, re-split a GPU, run an application's DAG. Throws
// QueryError saying which.
void check_servable_live(const PreparedServing& prepared);

}  // namespace servescope::engine::live
