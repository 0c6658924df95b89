#include "engine/live/peer_server.h"

#include <algorithm>
#include <sstream>

#include "engine/live/byte_codec.h"
#include "engine/live/certificates.h"
#include "engine/live/json_payload.h"
#include "model/core/error.h"

namespace servescope::engine::live {
namespace {

// Until a peer is welcomed its frames may be no larger than a hello needs, and only so many
// peers may be waiting to say hello (HelloGate): strangers cannot make the scheduler buffer much.
constexpr std::uint32_t kHelloFrameLimit = 4096;
// Accepted per pass of the loop, so the hellos of those accepted are read before a flood's next
// connections can push them out of the gate.
constexpr int kAcceptsPerPass = 16;
// A worker or load generator this far behind reading what it is sent is dropped.
constexpr std::size_t kPeerBufferLimit = 64u << 20;

TcpListener listen(const PeerServerOptions& options) {
  check_plain_listener("the scheduler", options.host, options.tls != nullptr, options.insecure);
  return TcpListener(options.port, options.host);
}

double seconds(std::chrono::steady_clock::duration d) {
  return std::chrono::duration<double>(d).count();
}

}  // namespace

PeerServer::PeerServer(Handler& handler, PeerServerOptions options, SchedulerCounters& counters)
    : handler_(handler),
      options_(std::move(options)),
      counters_(counters),
      listener_(listen(options_)),
      gate_(options_.gate) {}

void PeerServer::add_poll_fds(std::vector<pollfd>& fds, SteadyTime now) const {
  fds.push_back({now >= accept_paused_until_ ? listener_.native_handle() : -1, POLLIN, 0});
  for (const auto& p : peers_) {
    // A source that failed too many hellos has its next ones left unread for a while.
    const bool held = !p->welcomed && gate_.holds(p->source, now);
    fds.push_back({p->closed || held ? -1 : p->conn->native_handle(),
                   static_cast<short>(POLLIN | (p->conn->wants_write() ? POLLOUT : 0)), 0});
  }
}

void PeerServer::serve(std::span<const pollfd> fds) {
  // Peers first, newcomers after: a connection accepted last time has its hello read before any
  // newcomer can push it out of the gate. Only the peers the poll set was built over: any
  // accepted since are past its end.
  for (std::size_t i = 0; i < peers_.size() && i + 1 < fds.size(); ++i) {
    auto& p = *peers_[i];
    if (p.closed || fds[i + 1].revents == 0) continue;
    frames_.clear();
    const bool open = p.conn->receive(frames_);
    read_frames(p, frames_);
    if (open || p.closed) continue;
    const auto& error = p.conn->error();
    if (!error.empty()) ++counters_.connections_refused;
    // A stranger's failure before its hello (a plain client on TLS, a certificate refused, a TLS
    // client on plain TCP) is logged like a refused token: per source, counted per interval.
    if (!p.welcomed && !error.empty())
      if (const auto line = gate_.failed(p.source, error, std::chrono::steady_clock::now())) handler_.log(*line);
    if (!p.welcomed && error.find("magic") != std::string::npos) {
      close(p, "not one of ours", false);  // no answer at all: it cannot read ours
      continue;
    }
    if (!error.empty() && !p.welcomed) p.conn->send_raw(FrameEncoder::preamble());
    close(p, error.empty() ? "connection closed" : error, !error.empty());
  }
  if (!fds.empty() && (fds[0].revents & POLLIN)) accept_connections();
}

void PeerServer::accept_connections() {
  const auto speaking = [this](std::uint64_t id) {
    const auto* p = find(id);
    return p && p->conn->heard_anything();
  };
  for (int accepted = 0; accepted < kAcceptsPerPass; ++accepted) {
    std::optional<TcpStream> stream;
    try {
      stream = listener_.accept(std::chrono::milliseconds(0));
    } catch (const LiveError& e) {
      // Out of descriptors (a flood, or a limit too low): stop accepting for a moment rather than
      // spin or fall over; established peers go on being served.
      handler_.log(std::string("not accepting connections for 100 ms: ") + e.what());
      accept_paused_until_ = std::chrono::steady_clock::now() + std::chrono::milliseconds(100);
      return;
    }
    if (!stream) return;
    const auto open = static_cast<std::size_t>(std::ranges::count_if(peers_, [](const auto& p) { return !p->closed; }));
    if (open >= options_.max_connections) {
      ++counters_.connections_refused;
      const auto source = stream->peer_address();
      if (const auto line = gate_.failed(
              source, "too many connections (" + std::to_string(options_.max_connections) + " open, --max-connections)",
              std::chrono::steady_clock::now()))
        handler_.log(*line);
      continue;  // closed as it goes out of scope, unread
    }
    auto peer = std::make_unique<Peer>();
    peer->id = next_id_++;
    peer->source = stream->peer_address();
    const auto admission = gate_.arrive(peer->id, peer->source, std::chrono::steady_clock::now(), speaking);
    if (admission.evicted) {
      // Closed without a word, like any connection that has not said hello in time.
      if (auto* evicted = find(*admission.evicted)) {
        ++counters_.connections_evicted;
        close(*evicted, "evicted before its hello", false);
      }
    }
    if (!admission.admitted) {
      ++counters_.connections_refused;
      continue;  // closed as it goes out of scope: the room is full of workers' connections
    }
    if (options_.tls) stream->expect_tls(options_.tls);
    peer->conn = std::make_unique<Connection>(std::move(*stream), FrameDecoder(kHelloFrameLimit), FrameEncoder());
    peers_.push_back(std::move(peer));
  }
}

void PeerServer::hello(Peer& peer, const Frame& frame) {
  auto checked = accept_hello(frame, options_.token);
  if (auto* refusal = std::get_if<Refusal>(&checked)) {
    ++counters_.connections_refused;
    peer.conn->send_raw(FrameEncoder::preamble());
    // Counted per source, logged once per interval: a guesser cannot flood the log.
    if (const auto line = gate_.failed(peer.source, refusal->reason, std::chrono::steady_clock::now()))
      handler_.log(*line);
    close(peer, refusal->reason, true);
    return;
  }
  peer.hello = std::get<Hello>(std::move(checked));
  // With TLS the certificate decides the role, not the hello: a GUI's certificate joins as a GUI.
  auto why = role_refusal(peer.conn->stream(), to_string(peer.hello.role));
  if (why.empty()) why = handler_.admit(peer);
  if (!why.empty()) {
    ++counters_.connections_refused;
    peer.conn->send_raw(FrameEncoder::preamble());
    handler_.log("refused " + std::string(to_string(peer.hello.role)) + ": " + why);
    close(peer, why, true);
    return;
  }
  peer.welcomed = true;
  gate_.welcomed(peer.id, peer.hello.role == PeerRole::Worker);
  peer.conn->set_max_frame_bytes(kDefaultMaxFrameBytes);
  peer.conn->send_raw(FrameEncoder::preamble());
  peer.conn->send(FrameType::Welcome, handler_.welcome(peer).dump());
  handler_.welcomed(peer);
}

void PeerServer::read_frames(Peer& peer, std::vector<Frame>& frames) {
  for (const auto& f : frames) {
    if (peer.closed) return;
    if (!peer.welcomed) {
      if (f.type != FrameType::Hello) {
        ++counters_.connections_refused;
        peer.conn->send_raw(FrameEncoder::preamble());
        close(peer, std::string(to_string(f.type)) + " frame before hello", true);
        return;
      }
      try {
        hello(peer, f);
      } catch (const std::exception& e) {
        ++counters_.connections_refused;
        close(peer, std::string("refused: ") + e.what(), true);
        return;
      }
      continue;
    }
    try {
      switch (f.type) {
        case FrameType::Heartbeat:
          break;
        case FrameType::Refused:
          close(peer, "it said: " + quote_payload(f.payload), false);
          return;
        default:
          handler_.frame(peer, f);
      }
    } catch (const ProtocolError& e) {
      ++counters_.connections_refused;
      close(peer, e.what(), true);
      return;
    } catch (const nlohmann::json::exception& e) {
      // A control message of the wrong shape ({"command": 1}): that peer's mistake, not ours.
      ++counters_.connections_refused;
      close(peer, std::string("malformed control message: ") + e.what(), true);
      return;
    }
  }
}

void PeerServer::close(Peer& peer, const std::string& why, bool refuse) {
  if (peer.closed) return;
  peer.closed = true;
  gate_.leave(peer.id);
  if (refuse) {
    try {
      peer.conn->send(FrameType::Refused, why);
      peer.conn->flush();
    } catch (const LiveError&) {
      // It left already.
    }
  }
  peer.conn->close();
  if (peer.welcomed)
    handler_.log(std::string(to_string(peer.hello.role)) + " " + peer.hello.name + " disconnected: " + why);
  handler_.closed(peer, why);
}

void PeerServer::check_liveness(SteadyTime now) {
  const auto overdue = gate_.overdue(now);
  for (auto& p : peers_) {
    if (p->closed) continue;
    if (!p->welcomed) {
      if (std::ranges::find(overdue, p->id) != overdue.end())
        close(*p, "no hello within " + std::to_string(gate_.deadline().count()) + " ms", false);
      continue;
    }
    if (now - p->conn->last_heard() > options_.liveness) {
      std::ostringstream why;
      why.precision(2);
      why << std::fixed << "silent for " << seconds(now - p->conn->last_heard()) << " s";
      close(*p, why.str(), true);
      continue;
    }
    if (now - p->conn->last_sent() > options_.heartbeat) p->conn->send(FrameType::Heartbeat, std::string_view{});
    // A subscriber's own limit is the scheduler's (it is dropped when it falls behind the events).
    if (p->hello.role != PeerRole::Gui && p->conn->buffered() > kPeerBufferLimit)
      close(*p, "not reading what it is sent (" + std::to_string(p->conn->buffered() >> 20) + " MiB behind)", true);
  }
  for (const auto& line : gate_.summaries(now))
    handler_.log(line);
}

void PeerServer::flush() {
  for (auto& p : peers_) {
    if (p->closed || !p->conn->wants_write()) continue;
    try {
      p->conn->flush();
    } catch (const LiveError& e) {
      close(*p, e.what(), false);
    }
  }
}

void PeerServer::erase_closed() {
  std::erase_if(peers_, [](const std::unique_ptr<Peer>& p) { return p->closed; });
}

void PeerServer::shut_down(std::string_view why) {
  for (auto& p : peers_)
    if (!p->closed && p->welcomed) {
      try {
        p->conn->send(FrameType::Refused, why);
        p->conn->drain(std::chrono::milliseconds(200));
      } catch (const LiveError&) {
        // It is going too.
      }
    }
  peers_.clear();
}

Peer* PeerServer::find(std::uint64_t id) {
  const auto it = std::ranges::find_if(peers_, [id](const auto& p) { return p->id == id; });
  return it != peers_.end() && !(*it)->closed ? it->get() : nullptr;
}

void PeerServer::send_to(PeerRole role, FrameType type, std::string_view payload) {
  for (auto& p : peers_)
    if (p->welcomed && !p->closed && p->hello.role == role) p->conn->send(type, payload);
}

std::size_t PeerServer::subscribers() const {
  return static_cast<std::size_t>(std::ranges::count_if(
      peers_, [](const auto& p) { return !p->closed && p->welcomed && p->hello.role == PeerRole::Gui; }));
}

}  // namespace servescope::engine::live
