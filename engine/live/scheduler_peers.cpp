// The live scheduler's side of its peers (docs/protocol.md): who may join as which server's worker,
// the welcome, what the frames of workers, load generators and GUI subscribers mean, the status
// they are sent, and what happens to a worker's batches when it is lost or late.
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
Peer* LiveScheduler::worker_of(std::uint32_t server) {
  const auto id = roster_.worker(server);
  return id == 0 ? nullptr : peers_.find(id);
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
  // The requests it held are all the loss may cost: a drop blamed on this worker later means the
  // plane still placed work on it (the load generator's worker-lost count is checked against this).
  std::size_t held = 0;
  for (const auto& b : lost)
    held += b.batch.requests.size();
  for (const auto& c : cut)
    held += c.transfer.requests.size();
  notice(NoticeKind::WorkerLost, server,
         "worker of " + prepared_.result.server_names[server] + " lost (" + why + "): " + std::to_string(lost.size()) +
             " batches and " + std::to_string(cut.size()) + " transfers in flight, holding " + std::to_string(held) +
             " requests");
  // Out of planning first, so nothing the plane does on hearing of its lost batches goes there,
  // and what the plane reserved there is ended with it.
  set_server_available(server, false);
  const auto worker_lost_drops = [this] {
    std::uint64_t n = 0;
    for (const auto& by_reason : counters_.dropped)
      n += by_reason[static_cast<std::size_t>(DropReason::WorkerLost)];
    return n;
  };
  const auto before = worker_lost_drops();
  for (const auto g : roster_.slots_of(server))
    prepared_.plane->on_gpu_lost(g);
  if (const auto ended = worker_lost_drops() - before; ended > 0) {
    counters_.reserved_on_lost_workers += ended;
    log("the plan's stages reserved on " + prepared_.result.server_names[server] + " ended " + std::to_string(ended) +
        " requests");
  }
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

nlohmann::json LiveScheduler::welcome(const Peer& peer) const {
  const auto& result = prepared_.result;
  nlohmann::json j = {{"server", "servescope-scheduler"},
                      {"protocol", kProtocolVersion},
                      {"heartbeat_ms", options_.heartbeat.count()},
                      {"liveness_ms", options_.liveness.count()},
                      {"tls", options_.tls != nullptr},
                      // Plain TCP beyond loopback (--insecure): a GUI says so in its status bar.
                      {"insecure", options_.tls == nullptr && !is_loopback(options_.host)}};
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

std::string LiveScheduler::status_text() const {
  const nlohmann::json status = {{"type", "status"},
                                 {"now_ns", now().count_ns()},
                                 {"workers", roster_.status()},
                                 {"missing_servers", missing_servers()},
                                 {"outstanding", ledger_.size()},
                                 {"switching", switch_.under_way()},
                                 {"system", prepared_.result.system},
                                 {"requests", counters_.requests()},
                                 {"events", counters_.events}};
  return status.dump();
}

void LiveScheduler::broadcast_status() {
  last_status_ = std::chrono::steady_clock::now();
  const auto text = status_text();
  peers_.send_to(PeerRole::LoadGenerator, FrameType::Control, text);
  peers_.send_to(PeerRole::Gui, FrameType::Control, text);
}

void LiveScheduler::closed(Peer& peer, const std::string& why) {
  if (peer.hello.role == PeerRole::Worker && peer.server != UINT32_MAX && roster_.worker(peer.server) == peer.id)
    lose_worker(peer.server, why);
}

std::string LiveScheduler::admit(Peer& peer) {
  if (peer.hello.role != PeerRole::Worker) return {};
  const auto server = roster_.find(peer.hello.name);
  if (!server) {
    std::string why = "no server named '" + peer.hello.name + "' in the cluster (servers:";
    for (const auto& n : roster_.server_names())
      why += " " + n;
    return why + ")";
  }
  if (roster_.worker(*server) != 0) return "server '" + peer.hello.name + "' already has a worker connected";
  peer.server = *server;
  peer.feature_host = peer.source.empty() ? "127.0.0.1" : peer.source;
  return {};
}

void LiveScheduler::welcomed(Peer& peer) {
  peer.commands = TokenBucket(options_.commands_per_second, options_.command_burst);
  if (peer.hello.role != PeerRole::Worker) {
    log(std::string(to_string(peer.hello.role)) + " " + peer.hello.name + " connected");
    return;
  }
  roster_.join(peer.server, peer.id);
  set_server_available(peer.server, true);
  ++counters_.workers_joined;
  notice(NoticeKind::WorkerBack, peer.server, "worker " + peer.hello.name + " joined");
  broadcast_status();
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
          const auto overdue = overdue_at(kv.second);
          return kv.second.server == peer.server && overdue && now() > *overdue;
        })) {
      roster_.clear_doubt(peer.server);
      set_server_available(peer.server, true);
      notice(NoticeKind::WorkerBack, peer.server, "worker of " + peer.hello.name + " answered again");
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

bool LiveScheduler::command_allowed(Peer& peer) {
  const auto t = std::chrono::steady_clock::now();
  if (peer.commands.take(t)) {
    ++counters_.commands_served;
    return true;
  }
  ++counters_.commands_limited;
  ++peer.commands_ignored;
  if (t - peer.commands_logged > std::chrono::seconds(5)) {
    peer.commands_logged = t;
    log(std::string(to_string(peer.hello.role)) + " " + peer.hello.name + " sends control commands faster than " +
        std::to_string(static_cast<int>(options_.commands_per_second)) + "/s; " +
        std::to_string(peer.commands_ignored) + " ignored so far");
  }
  return false;
}

void LiveScheduler::handle_apply_plan(Peer& peer, const nlohmann::json& command) {
  nlohmann::json reply = {{"type", "plan-reply"}, {"ok", false}};
  const auto t = std::chrono::steady_clock::now();
  if (switch_.under_way()) {
    ++counters_.plan_switches_limited;
    reply["message"] = "plan not applied: a plan switch is already under way; ask again once it ends";
  } else if (last_switch_begun_ && t - *last_switch_begun_ < options_.plan_switch_interval) {
    // Before the plan is prepared (a planner may run), since each switch flushes the whole
    // deployment; counted in /metrics, not logged a line each.
    ++counters_.plan_switches_limited;
    const auto wait = std::chrono::duration_cast<std::chrono::milliseconds>(options_.plan_switch_interval -
                                                                            (t - *last_switch_begun_));
    reply["message"] = "plan not applied: plan switches may begin once every " +
                       std::to_string(options_.plan_switch_interval.count()) + " ms; try again in " +
                       std::to_string(wait.count()) + " ms";
  } else {
    try {
      if (!plan_preparer_) throw QueryError("this scheduler was started without a way to prepare plans");
      apply_plan(plan_preparer_(command));
      last_switch_begun_ = t;
      reply["ok"] = true;
      reply["message"] = "switching to " + switch_.next().result.system + ": flushing the current plan";
    } catch (const std::exception& e) {
      reply["message"] = std::string("plan not applied: ") + e.what();
      notice(NoticeKind::Refused, std::nullopt, reply["message"].get<std::string>());
    }
  }
  peer.conn->send(FrameType::Control, reply.dump());
}

void LiveScheduler::handle_control(Peer& peer, const Frame& frame) {
  // Counted before it is parsed: a flood ends at the peer's own limit, costing a frame's header.
  if (!command_allowed(peer)) return;
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
    // To the asker alone: an answer to one peer is no business of the others' connections.
    peer.conn->send(FrameType::Control, status_text());
    return;
  }
  if (j.value("command", "") == "apply-plan" && peer.hello.role == PeerRole::Gui) {
    handle_apply_plan(peer, j);
    return;
  }
  // Quoted short: the peer's text, however large or deep, is never dumped whole into a log.
  throw ProtocolError("unknown control message " + quote_payload(frame.payload));
}

void LiveScheduler::frame(Peer& peer, const Frame& f) {
  event_began_ = std::chrono::steady_clock::now();
  switch (f.type) {
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
    default:
      throw ProtocolError(std::string("a ") + std::string(to_string(f.type)) + " frame is not for the scheduler");
  }
}

std::optional<Time> LiveScheduler::overdue_at(const InFlightBatch& b) const {
  const auto slot = b.batch.gpu;
  for (const auto& [id, other] : batches_)
    if (other.batch.gpu == slot && (other.start < b.start || (other.start == b.start && other.batch.id < b.batch.id)))
      return std::nullopt;
  const Time reported = slot < slot_reported_.size() ? slot_reported_[slot] : kMinusInfinity;
  return std::max(b.start, reported) + b.allowance;
}

void LiveScheduler::check_liveness() {
  peers_.check_liveness(std::chrono::steady_clock::now());
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
  const auto liveness = Duration::nanoseconds(std::chrono::nanoseconds(options_.liveness).count());
  for (const auto& [id, b] : batches_)
    if (const auto overdue = overdue_at(b); overdue && at > *overdue + liveness) hung = b.server;
  if (hung)
    if (auto* worker = worker_of(*hung))
      peers_.close(*worker, "a batch is more than " + std::to_string(options_.liveness.count()) + " ms overdue", true);
  std::vector<std::pair<std::uint32_t, std::uint64_t>> doubted;  // (server, its late batch)
  for (const auto& [id, b] : batches_)
    if (const auto overdue = overdue_at(b); overdue && at > *overdue && roster_.doubt(b.server))
      doubted.emplace_back(b.server, b.batch.id);
  for (const auto& [server, batch] : doubted) {
    ++counters_.workers_doubted;
    set_server_available(server, false);
    notice(NoticeKind::WorkerLate, server,
           "worker of " + prepared_.result.server_names[server] + " is late with batch " + std::to_string(batch) +
               "; planning without its GPUs until it answers");
  }
}

}  // namespace servescope::engine::live
