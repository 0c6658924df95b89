// Driving a PeerServer from a test: its event loop, run on the test's thread until a condition
// holds (the client side runs on another thread or in another process). The bound is a liveness
// bound that only catches a hang, never a claim of speed.
#pragma once

#include <poll.h>

#include <chrono>
#include <functional>
#include <vector>

#include "engine/live/peer_server.h"

namespace servescope::test {

inline void pump(engine::live::PeerServer& server, const std::function<bool()>& done,
                 std::chrono::milliseconds limit = std::chrono::milliseconds(10000)) {
  const auto deadline = std::chrono::steady_clock::now() + limit;
  std::vector<pollfd> fds;
  while (!done() && std::chrono::steady_clock::now() < deadline) {
    fds.clear();
    server.add_poll_fds(fds, std::chrono::steady_clock::now());
    ::poll(fds.data(), fds.size(), 10);
    server.serve(fds);
    server.check_liveness(std::chrono::steady_clock::now());
    server.flush();
    server.erase_closed();
  }
}

}  // namespace servescope::test
