// The live scheduler's connections (docs/protocol.md "Frames" and "Liveness and faults"): it listens, lets
// strangers wait for their hello behind the HelloGate, checks each hello's token, welcomes or
// refuses, reads frames, sends heartbeats, and closes a peer that falls silent, stops reading or
// breaks the protocol, saying why. What a welcomed peer's frames mean (requests, reports, control
// commands) and what a worker's loss does to the run is the scheduler's: it is the Handler.
#pragma once

#include <poll.h>

#include <chrono>
#include <cstdint>
#include <memory>
#include <nlohmann/json.hpp>
#include <span>
#include <string>
#include <vector>

#include "engine/live/connection.h"
#include "engine/live/handshake.h"
#include "engine/live/hello_gate.h"
#include "engine/live/messages.h"
#include "engine/live/scheduler_counters.h"
#include "engine/live/tls.h"
#include "engine/live/token_bucket.h"

namespace servescope::engine::live {

// One connection: a worker, a load generator or a GUI subscriber, and what the scheduler keeps
// of it.
struct Peer {
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
  // Its control commands (the scheduler's limit, set at its welcome), and those over it: ignored,
  // counted and logged at most every few seconds.
  TokenBucket commands{0, 0};
  std::uint64_t commands_ignored = 0;
  SteadyTime commands_logged{};
};

struct PeerServerOptions {
  std::string token;
  std::string host = "127.0.0.1";
  std::uint16_t port = 0;                    // 0: any free port
  std::chrono::milliseconds heartbeat{250};  // sent on a connection idle this long
  std::chrono::milliseconds liveness{1000};  // a peer silent this long is gone
  std::shared_ptr<const TlsContext> tls;     // mutual TLS on every connection (null: plain TCP)
  bool insecure = false;                     // may listen on a non-loopback address without TLS
  // Open connections, welcomed or not: a newcomer beyond it is closed at once (and logged), so
  // a reconnect storm runs the scheduler out of neither descriptors nor memory.
  std::size_t max_connections = 1024;
  HelloGateLimits gate;  // the connections still to say hello (hello_gate.h)
};

class PeerServer {
 public:
  class Handler {
   public:
    // A hello with the deployment's token: "" to welcome `peer` (noting what the scheduler keeps
    // of it), or why it is refused.
    virtual std::string admit(Peer& peer) = 0;
    // The welcome's payload for a peer just admitted.
    virtual nlohmann::json welcome(const Peer& peer) const = 0;
    virtual void welcomed(Peer& peer) = 0;
    // A welcomed peer's frame (not a heartbeat or a refusal). ProtocolError, or a JSON error
    // from a control message of the wrong shape, closes the peer with the reason.
    virtual void frame(Peer& peer, const Frame& frame) = 0;
    // After a peer is closed, once.
    virtual void closed(Peer& peer, const std::string& why) = 0;
    virtual void log(const std::string& line) const = 0;

   protected:
    ~Handler() = default;
  };

  // Throws LiveError when it cannot listen.
  PeerServer(Handler& handler, PeerServerOptions options, SchedulerCounters& counters);

  std::uint16_t port() const { return listener_.port(); }
  const PeerServerOptions& options() const { return options_; }

  // The poll set: the listener first (-1 while accepting is paused), then each peer (-1 for a
  // closed one, and for a stranger whose source the gate holds back).
  void add_poll_fds(std::vector<pollfd>& fds, SteadyTime now) const;
  // After poll over add_poll_fds's set: reads the ready peers' frames, then accepts newcomers.
  void serve(std::span<const pollfd> fds);
  // Closes strangers past their hello deadline and peers silent for the liveness time, sends
  // heartbeats, drops a worker or load generator too far behind reading, and logs the gate's
  // counts of refused hellos.
  void check_liveness(SteadyTime now);
  // Sends what each peer has buffered; a peer whose connection fails is closed.
  void flush();
  // Forgets closed peers (call once per loop pass, after everything that may close one).
  void erase_closed();
  // Says goodbye to every welcomed peer, waiting a moment for it to go out.
  void shut_down(std::string_view why);

  // Closes `peer` once, sending `why` in a refusal first when `refuse`, and tells the handler.
  void close(Peer& peer, const std::string& why, bool refuse);
  std::span<const std::unique_ptr<Peer>> peers() const { return peers_; }
  Peer* find(std::uint64_t id);  // open peers only
  // Sends to every welcomed, open peer of `role`.
  void send_to(PeerRole role, FrameType type, std::string_view payload);
  std::size_t subscribers() const;  // welcomed, open GUI peers

 private:
  void accept_connections();
  void read_frames(Peer& peer, std::vector<Frame>& frames);
  void hello(Peer& peer, const Frame& frame);

  Handler& handler_;
  PeerServerOptions options_;
  SchedulerCounters& counters_;
  TcpListener listener_;
  HelloGate gate_;  // connections that have not said hello yet
  std::uint64_t next_id_ = 1;
  std::vector<std::unique_ptr<Peer>> peers_;
  SteadyTime accept_paused_until_;
  std::vector<Frame> frames_;  // reused across reads
};

}  // namespace servescope::engine::live
