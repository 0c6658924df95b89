// The live scheduler's peers: accepting connections behind the hello gate, the hello, requests,
// reports and control frames of workers, load generators and GUI subscribers, their liveness,
// and what happens to a worker's batches when it is lost (docs/protocol.md).
#include <algorithm>

#include "engine/live/byte_codec.h"
#include "engine/live/json_payload.h"
#include "engine/live/live_run.h"
#include "engine/live/live_scheduler.h"
#include "engine/live/messages.h"
#include "engine/live/scheduler_parts.h"
#include "engine/ppipe/pipeline_deployment.h"
#include "engine/systems/system_registry.h"
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

double seconds(std::chrono::steady_clock::duration d) {
  return std::chrono::duration<double>(d).count();
}

}  // namespace

LiveScheduler::Peer* LiveScheduler::worker_of(std::uint32_t server) {
  const auto id = roster_.worker(server);
  if (id == 0) return nullptr;
  for (auto& p : peers_)
    if (p->id == id && !p->closed) return p.get();
  return nullptr;
}

std::size_t LiveScheduler::workers_connected() const {
  return roster_.connected();
}

std::vector<std::string> LiveScheduler::missing_servers() const {
  return roster_.missing();
}

// ---- Executor ---------------------------------------------------------------------------------

void LiveScheduler::lose_worker(std::uint32_t server, const std::string& why) {
  roster_.leave(server);
  ++counters_.workers_lost;
  std::vector<InFlightBatch> lost;
  for (auto it = batches_.begin(); it != batches_.end();)
    if (it->second.server == server) {
      lost.push_back(std::move(it->second));
      it = batches_.erase(it);
    } else {
      ++it;
    }
  // In the order they were dispatched, so the data plane hears of each GPU's batches in order.
  std::ranges::sort(lost, [](const InFlightBatch& a, const InFlightBatch& b) { return a.batch.id < b.batch.id; });
  std::vector<InFlightTransfer> cut;
  for (auto it = transfers_.begin(); it != transfers_.end();)
    if (it->second.sender == server || it->second.receiver == server) {
      cut.push_back(std::move(it->second));
      it = transfers_.erase(it);
    } else {
      ++it;
    }
  log("worker of " + prepared_.result.server_names[server] + " lost (" + why + "): " + std::to_string(lost.size()) +
      " batches and " + std::to_string(cut.size()) + " transfers in flight");
  // Out of planning first, so nothing the plane does on hearing of its lost batches goes there.
  set_server_available(server, false);
  for (const auto& b : lost)
    lose_batch(b, DropReason::WorkerLost);
  const Time t = now();
  for (auto& c : cut) {
    for (const auto& r : c.transfer.requests)
      dropped(r, DropReason::WorkerLost);
    const auto& x = c.transfer;
    prepared_.plane->on_transfer_done(TransferDone{x.id, x.batch, x.from_gpu, x.to_gpu, c.issued, t});
  }
  broadcast_status();
}

// ---- Connections ------------------------------------------------------------------------------

nlohmann::json LiveScheduler::welcome_for(const Peer& peer) const {
  const auto& result = prepared_.result;
  nlohmann::json j = {{"server", "servescope-scheduler"},
                      {"protocol", kProtocolVersion},
                      {"heartbeat_ms", options_.heartbeat.count()},
                      {"liveness_ms", options_.liveness.count()}};
  if (peer.hello.role == PeerRole::Worker) {
    j.update(assignment_for(peer.server));
    return j;
  }
  j["scenario"] = scenario_name_;
  j["run"] = describe_run(result);
  j["now_ns"] = now().count_ns();
  j["missing_servers"] = missing_servers();
  std::vector<double> shares(result.models.size(), 0.0);
  double total = 0;
  for (const auto& s : prepared_.setup.streams) {
    shares[s.model] += s.rate_rps;
    total += s.rate_rps;
  }
  for (auto& s : shares)
    s = total > 0 ? s / total : 0.0;
  j["rate_shares"] = shares;
  return j;
}

void LiveScheduler::broadcast_status() {
  last_status_ = std::chrono::steady_clock::now();
  const nlohmann::json status = {{"type", "status"},
                                 {"now_ns", now().count_ns()},
                                 {"workers", roster_.status()},
                                 {"missing_servers", missing_servers()},
                                 {"outstanding", ledger_.size()},
                                 {"switching", switch_.under_way()},
                                 {"system", prepared_.result.system},
                                 {"requests", counters_.requests()},
                                 {"events", counters_.events}};
  const auto text = status.dump();
  for (auto& p : peers_)
    if (p->welcomed && !p->closed && p->hello.role != PeerRole::Worker) p->conn->send(FrameType::Control, text);
}

void LiveScheduler::close_peer(Peer& peer, const std::string& why, bool refuse) {
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
  if (peer.welcomed) log(std::string(to_string(peer.hello.role)) + " " + peer.hello.name + " disconnected: " + why);
  if (peer.hello.role == PeerRole::Worker && peer.server != UINT32_MAX && roster_.worker(peer.server) == peer.id)
    lose_worker(peer.server, why);
}

void LiveScheduler::accept_connections() {
  const auto speaking = [this](std::uint64_t id) {
    const auto it = std::ranges::find_if(peers_, [id](const auto& p) { return p->id == id; });
    return it != peers_.end() && !(*it)->closed && (*it)->conn->heard_anything();
  };
  for (int accepted = 0; accepted < kAcceptsPerPass; ++accepted) {
    std::optional<TcpStream> stream;
    try {
      stream = listener_.accept(std::chrono::milliseconds(0));
    } catch (const LiveError& e) {
      // Out of descriptors (a flood, or a limit too low): stop accepting for a moment rather than
      // spin or fall over; established peers go on being served.
      log(std::string("not accepting connections for 100 ms: ") + e.what());
      accept_paused_until_ = std::chrono::steady_clock::now() + std::chrono::milliseconds(100);
      return;
    }
    if (!stream) return;
    auto peer = std::make_unique<Peer>();
    peer->id = next_peer_id_++;
    peer->source = stream->peer_address();
    const auto admission = gate_.arrive(peer->id, peer->source, std::chrono::steady_clock::now(), speaking);
    if (admission.evicted) {
      // Closed without a word, like any connection that has not said hello in time.
      const auto it = std::ranges::find_if(peers_, [&](const auto& p) { return p->id == *admission.evicted; });
      if (it != peers_.end()) {
        ++counters_.connections_evicted;
        close_peer(**it, "evicted before its hello", false);
      }
    }
    if (!admission.admitted) {
      ++counters_.connections_refused;
      continue;  // closed as it goes out of scope: the room is full of workers' connections
    }
    peer->conn = std::make_unique<Connection>(std::move(*stream), FrameDecoder(kHelloFrameLimit), FrameEncoder());
    peers_.push_back(std::move(peer));
  }
}

void LiveScheduler::handle_hello(Peer& peer, const Frame& frame) {
  auto checked = accept_hello(frame, options_.token);
  if (auto* refusal = std::get_if<Refusal>(&checked)) {
    ++counters_.connections_refused;
    peer.conn->send_raw(FrameEncoder::preamble());
    // Counted per source, logged once per interval: a guesser cannot flood the log.
    if (const auto line = gate_.failed(peer.source, refusal->reason, std::chrono::steady_clock::now())) log(*line);
    close_peer(peer, refusal->reason, true);
    return;
  }
  peer.hello = std::get<Hello>(std::move(checked));
  if (peer.hello.role == PeerRole::Worker) {
    const auto server = roster_.find(peer.hello.name);
    std::string why;
    if (!server) {
      why = "no server named '" + peer.hello.name + "' in the cluster (servers:";
      for (const auto& n : roster_.server_names())
        why += " " + n;
      why += ")";
    } else if (roster_.worker(*server) != 0) {
      why = "server '" + peer.hello.name + "' already has a worker connected";
    }
    if (!why.empty()) {
      ++counters_.connections_refused;
      peer.conn->send_raw(FrameEncoder::preamble());
      log("refused worker: " + why);
      close_peer(peer, why, true);
      return;
    }
    peer.server = *server;
    peer.feature_host = peer.source.empty() ? "127.0.0.1" : peer.source;
  }
  peer.welcomed = true;
  gate_.welcomed(peer.id, peer.hello.role == PeerRole::Worker);
  peer.conn->set_max_frame_bytes(kDefaultMaxFrameBytes);
  peer.conn->send_raw(FrameEncoder::preamble());
  peer.conn->send(FrameType::Welcome, welcome_for(peer).dump());
  if (peer.hello.role == PeerRole::Worker) {
    roster_.join(peer.server, peer.id);
    set_server_available(peer.server, true);
    ++counters_.workers_joined;
    log("worker " + peer.hello.name + " joined");
    broadcast_status();
  } else {
    log(std::string(to_string(peer.hello.role)) + " " + peer.hello.name + " connected");
  }
}

void LiveScheduler::handle_requests(Peer& peer, const Frame& frame) {
  const auto requests = decode_requests(frame.payload);
  const Time t = now();
  const auto& slo = prepared_.result.model_slo;
  for (const auto& c : requests)
    if (c.model >= slo.size())
      throw ProtocolError("a request names model " + std::to_string(c.model) + "; the run serves " +
                          std::to_string(slo.size()));
  for (const auto& c : requests) {
    const Request r{next_request_++, c.model, c.target, t, t + slo[c.model]};
    ledger_.emplace(r.id, Owner{peer.id, c.client_id, r});
    ++counters_.arrivals[r.model];
    if (switch_.under_way()) {
      switch_.hold(r);  // a plan switch is flushing the current plane; it arrives in the next
      continue;
    }
    recording_.events().on_arrival(r);
    prepared_.plane->on_request(r);
  }
}

void LiveScheduler::handle_report(Peer& peer, const Frame& frame) {
  const auto report = decode_report(frame.payload);
  if (const auto* ran = std::get_if<RunReport>(&report)) {
    const auto it = batches_.find(ran->batch);
    if (it != batches_.end() && it->second.server != peer.server)
      throw ProtocolError("worker " + peer.hello.name + " reported batch " + std::to_string(ran->batch) +
                          ", which another server runs");
    const bool ours = it != batches_.end();
    finish_batch(ran->batch, ran->run_ns);
    // Only a batch of this plan, run to its end, clears a doubt: heartbeats, feature-map reports and
    // stale reports do not (a worker whose executor hangs still beats).
    if (ours && roster_.doubted(peer.server) && !std::ranges::any_of(batches_, [&](const auto& kv) {
          return kv.second.server == peer.server && now() > kv.second.overdue;
        })) {
      roster_.clear_doubt(peer.server);
      set_server_available(peer.server, true);
      log("worker of " + peer.hello.name + " answered again");
    }
  } else if (const auto* got = std::get_if<ReceiveReport>(&report)) {
    const auto it = transfers_.find(got->transfer);
    if (it != transfers_.end() && it->second.receiver != peer.server)
      throw ProtocolError("worker " + peer.hello.name + " reported transfer " + std::to_string(got->transfer) +
                          ", which is for another server");
    finish_transfer(got->transfer);
  } else {
    const auto& failed = std::get<SendFailedReport>(report);
    const auto it = transfers_.find(failed.transfer);
    if (it != transfers_.end() && it->second.sender != peer.server)
      throw ProtocolError("worker " + peer.hello.name + " reported transfer " + std::to_string(failed.transfer) +
                          ", which another server sends");
    fail_transfer(failed.transfer, "worker " + peer.hello.name + " could not send it: " + failed.reason);
  }
}

void LiveScheduler::handle_control(Peer& peer, const Frame& frame) {
  const auto j = parse_payload(frame.payload, "a control frame");
  if (!j.is_object()) throw ProtocolError("a control frame is not a JSON object");
  if (j.contains("command") && !j["command"].is_string()) throw ProtocolError("a control command must be a string");
  if (peer.hello.role == PeerRole::Worker && j.contains("feature_port")) {
    const auto& port = j["feature_port"];
    if (!port.is_number_unsigned() || port.get<std::uint64_t>() > 65535)
      throw ProtocolError("feature_port must be a port number");
    peer.feature_port = port.get<std::uint16_t>();
    if (j.contains("feature_host")) {
      if (!j["feature_host"].is_string() || j["feature_host"].get<std::string>().size() > 64)
        throw ProtocolError("feature_host must be an address");
      peer.feature_host = j["feature_host"].get<std::string>();
    }
    return;
  }
  if (j.value("command", "") == "status") {
    broadcast_status();
    return;
  }
  if (j.value("command", "") == "apply-plan" && peer.hello.role == PeerRole::Gui) {
    nlohmann::json reply = {{"type", "plan-reply"}, {"ok", false}};
    try {
      if (!plan_preparer_) throw QueryError("this scheduler was started without a way to prepare plans");
      apply_plan(plan_preparer_(j));
      reply["ok"] = true;
      reply["message"] = "switching to " + switch_.next().result.system + ": flushing the current plan";
    } catch (const std::exception& e) {
      reply["message"] = std::string("plan not applied: ") + e.what();
      log(reply["message"].get<std::string>());
    }
    peer.conn->send(FrameType::Control, reply.dump());
    return;
  }
  // Quoted short: the peer's text, however large or deep, is never dumped whole into a log.
  throw ProtocolError("unknown control message " + quote_payload(frame.payload));
}

void LiveScheduler::handle_frames(Peer& peer, std::vector<Frame>& frames) {
  for (const auto& f : frames) {
    if (peer.closed) return;
    event_began_ = std::chrono::steady_clock::now();
    if (!peer.welcomed) {
      if (f.type != FrameType::Hello) {
        ++counters_.connections_refused;
        peer.conn->send_raw(FrameEncoder::preamble());
        close_peer(peer, std::string(to_string(f.type)) + " frame before hello", true);
        return;
      }
      try {
        handle_hello(peer, f);
      } catch (const std::exception& e) {
        ++counters_.connections_refused;
        close_peer(peer, std::string("refused: ") + e.what(), true);
        return;
      }
      continue;
    }
    try {
      switch (f.type) {
        case FrameType::Heartbeat:
          break;
        case FrameType::Request:
          if (peer.hello.role != PeerRole::LoadGenerator) throw ProtocolError("only load generators send requests");
          handle_requests(peer, f);
          break;
        case FrameType::BatchDone:
          if (peer.hello.role != PeerRole::Worker) throw ProtocolError("only workers report batches");
          handle_report(peer, f);
          break;
        case FrameType::Control:
          handle_control(peer, f);
          break;
        case FrameType::Refused:
          close_peer(peer, "it said: " + quote_payload(f.payload), false);
          return;
        default:
          throw ProtocolError(std::string("a ") + std::string(to_string(f.type)) + " frame is not for the scheduler");
      }
    } catch (const ProtocolError& e) {
      ++counters_.connections_refused;
      close_peer(peer, e.what(), true);
      return;
    } catch (const nlohmann::json::exception& e) {
      // A control message of the wrong shape ({"command": 1}): that peer's mistake, not ours.
      ++counters_.connections_refused;
      close_peer(peer, std::string("malformed control message: ") + e.what(), true);
      return;
    }
  }
}

void LiveScheduler::check_liveness() {
  const auto t = std::chrono::steady_clock::now();
  const auto overdue = gate_.overdue(t);
  for (auto& p : peers_) {
    if (p->closed) continue;
    if (!p->welcomed) {
      if (std::ranges::find(overdue, p->id) != overdue.end())
        close_peer(*p, "no hello within " + std::to_string(gate_.deadline().count()) + " ms", false);
      continue;
    }
    if (t - p->conn->last_heard() > options_.liveness) {
      std::ostringstream why;
      why.precision(2);
      why << std::fixed << "silent for " << seconds(t - p->conn->last_heard()) << " s";
      close_peer(*p, why.str(), true);
      continue;
    }
    if (t - p->conn->last_sent() > options_.heartbeat) p->conn->send(FrameType::Heartbeat, std::string_view{});
  }
  // A worker whose batch is overdue may have stopped: plan without its GPUs now rather than keep
  // sending it work for the rest of the liveness second. Hearing from it again restores them.
  const Time at = now();
  std::vector<std::uint64_t> late_transfers;
  for (const auto& [id, x] : transfers_)
    if (at > x.overdue) late_transfers.push_back(id);
  for (const auto id : late_transfers)
    fail_transfer(id, "not delivered within a second of its start");
  // A worker that beats but never reports a batch (its executor hangs) is as good as gone.
  std::optional<std::uint32_t> hung;
  for (const auto& [id, b] : batches_)
    if (at > b.overdue + Duration::nanoseconds(std::chrono::nanoseconds(options_.liveness).count())) hung = b.server;
  if (hung)
    if (auto* worker = worker_of(*hung))
      close_peer(*worker, "a batch is more than " + std::to_string(options_.liveness.count()) + " ms overdue", true);
  for (auto& p : peers_)
    if (!p->closed && p->welcomed && p->hello.role != PeerRole::Gui && p->conn->buffered() > kPeerBufferLimit)
      close_peer(*p, "not reading what it is sent (" + std::to_string(p->conn->buffered() >> 20) + " MiB behind)",
                 true);
  for (const auto& line : gate_.summaries(t))
    log(line);
  std::vector<std::pair<std::uint32_t, std::uint64_t>> doubted;  // (server, its late batch)
  for (const auto& [id, b] : batches_)
    if (at > b.overdue && roster_.doubt(b.server)) doubted.emplace_back(b.server, b.batch.id);
  for (const auto& [server, batch] : doubted) {
    ++counters_.workers_doubted;
    set_server_available(server, false);
    log("worker of " + prepared_.result.server_names[server] + " is late with batch " + std::to_string(batch) +
        "; planning without its GPUs until it answers");
  }
}

}  // namespace servescope::engine::live
