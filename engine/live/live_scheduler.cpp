#include "engine/live/live_scheduler.h"

#include <poll.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <sstream>
#include <unordered_set>

#include "engine/live/byte_codec.h"
#include "engine/live/json_payload.h"
#include "engine/live/live_run.h"
#include "engine/live/messages.h"
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

constexpr std::chrono::milliseconds kStatusEvery{500};

double seconds(std::chrono::steady_clock::duration d) {
  return std::chrono::duration<double>(d).count();
}

// Prometheus label values: backslash, quote and newline escaped.
std::string label(std::string_view v) {
  std::string out;
  for (const char c : v) {
    if (c == '\\' || c == '"') out += '\\';
    if (c == '\n') {
      out += "\\n";
      continue;
    }
    out += c;
  }
  return out;
}

// What live workers cannot do yet: preempt, re-split a GPU, run an application's DAG.
void check_servable_live(const PreparedServing& p) {
  const auto& system = p.result.system;
  if (!p.setup.apps.empty())
    throw QueryError("application requests are not served live yet; give a workload of models");
  if (const auto& why = data_plane_traits(system).not_live; !why.empty()) throw QueryError(why);
  if (!p.times) throw QueryError("the " + system + " data plane has no batch timings");
}

}  // namespace

std::uint64_t SchedulerCounters::requests() const {
  std::uint64_t n = 0;
  for (const auto a : arrivals)
    n += a;
  return n;
}

std::uint64_t SchedulerCounters::finished() const {
  std::uint64_t n = 0;
  for (std::size_t m = 0; m < arrivals.size(); ++m) {
    n += on_time[m] + late[m];
    for (const auto d : dropped[m])
      n += d;
  }
  return n;
}

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

LiveScheduler::LiveScheduler(PreparedServing prepared, SchedulerOptions options, std::string scenario_name)
    : prepared_(std::move(prepared)),
      options_(std::move(options)),
      scenario_name_(std::move(scenario_name)),
      context_{*this, *this, *this},
      listener_(options_.port, options_.host),
      origin_(std::chrono::steady_clock::now()),
      event_began_(origin_),
      last_status_(origin_) {
  check_servable_live(prepared_);
  const auto& result = prepared_.result;
  server_worker_.assign(result.server_names.size(), 0);
  server_doubted_.assign(result.server_names.size(), false);
  const auto models = result.models.size();
  counters_.arrivals.assign(models, 0);
  counters_.on_time.assign(models, 0);
  counters_.late.assign(models, 0);
  counters_.dropped.assign(models, {});
  fanout_.add(events_);
  adopt_plane();
  if (options_.metrics_port) {
    metrics_ = std::make_unique<MetricsServer>(*options_.metrics_port, options_.host);
    metrics_->publish(prometheus_text());
  }
}

// The current plane's slots: which server holds each, which servers the plan uses, their counters.
void LiveScheduler::adopt_plane() {
  const auto& result = prepared_.result;
  slot_server_.assign(result.gpu_server.begin(), result.gpu_server.end());
  server_used_.assign(result.server_names.size(), false);
  for (const auto s : slot_server_)
    server_used_[s] = true;
  counters_.batches.assign(result.gpus.size(), 0);
  counters_.busy_ns.assign(result.gpus.size(), 0);
  prepared_.plane->start(context_);
  // Slots whose worker has not joined are gone until it does; a doubted worker's until it reports.
  for (std::uint32_t g = 0; g < slot_server_.size(); ++g)
    if (server_worker_[slot_server_[g]] == 0 || server_doubted_[slot_server_[g]])
      prepared_.plane->set_gpu_available(g, false);
}

void LiveScheduler::set_server_available(std::uint32_t server, bool available) {
  for (std::uint32_t g = 0; g < slot_server_.size(); ++g)
    if (slot_server_[g] == server) prepared_.plane->set_gpu_available(g, available);
}

void LiveScheduler::apply_plan(PreparedServing next, Duration flush_limit) {
  if (pending_) throw QueryError("a plan switch is already under way");
  if (next.result.models != prepared_.result.models)
    throw QueryError("the new plan serves other models than the running one; both must serve the workload's models");
  if (next.result.server_names != prepared_.result.server_names)
    throw QueryError("the new plan is for another cluster");
  check_servable_live(next);
  pending_ = std::make_unique<PreparedServing>(std::move(next));
  switch_started_ = now();
  flush_limit_ = flush_limit;
  log("switching to " + pending_->result.system +
      (pending_->result.plan_system.empty() ? "" : " (" + pending_->result.plan_system + ")") +
      ": holding new requests while the current plane flushes");
  broadcast_status();
}

void LiveScheduler::maybe_switch() {
  if (!pending_) return;
  const bool flushed = batches_.empty() && transfers_.empty() && ledger_.size() == held_.size();
  const Time t = now();
  if (!flushed && t - switch_started_ < flush_limit_) return;
  publish();  // what the old plane did reaches subscribers under its own description
  // Requests the old plane still held past the limit end here, with the reason.
  std::vector<Request> stranded;
  std::unordered_set<RequestId> is_held;
  for (const auto& r : held_)
    is_held.insert(r.id);
  for (const auto& [id, owner] : ledger_)
    if (!is_held.contains(id)) stranded.push_back(owner.request);
  std::ranges::sort(stranded, {}, &Request::id);
  for (const auto& r : stranded)
    dropped(r, DropReason::NoCapacity);
  publish();  // the stranded drops too, to subscribers and into the recording
  if (options_.keep_events) {
    segments_.push_back({describe_run(prepared_.result), std::move(kept_events_)});
    kept_events_.clear();
  }
  // Everything of the old plane goes with it: its timers, its pending completions, its work.
  timers_ = IndexedHeap<TimerKey>();
  timer_tokens_.clear();
  lost_completions_.clear();
  instant_transfers_.clear();
  batches_.clear();
  transfers_.clear();
  ++plan_epoch_;  // reports for the old plan's batches, if any come, match nothing now
  const auto flush_ms = (t - switch_started_).to_ms();
  prepared_ = std::move(*pending_);
  pending_.reset();
  ++plan_switches_;
  adopt_plane();
  // Workers learn their slots' new shares (and an executor on real compute its threads).
  for (auto& p : peers_)
    if (p->welcomed && !p->closed && p->hello.role == PeerRole::Worker) {
      auto assignment = assignment_for(p->server);
      assignment["type"] = "assignment";
      p->conn->send(FrameType::Control, assignment.dump());
    }
  const nlohmann::json changed = {
      {"type", "plan-changed"}, {"run", describe_run(prepared_.result)}, {"now_ns", now().count_ns()}};
  const auto text = changed.dump();
  for (auto& p : peers_)
    if (p->welcomed && !p->closed && p->hello.role == PeerRole::Gui) p->conn->send(FrameType::Control, text);
  auto held = std::move(held_);
  held_.clear();
  for (const auto& r : held) {
    fanout_.on_arrival(r);
    prepared_.plane->on_request(r);
  }
  log("switched to " + prepared_.result.system + " after a flush of " + std::to_string(flush_ms) + " ms; " +
      std::to_string(held.size()) + " held requests handed over, " + std::to_string(stranded.size()) +
      " dropped as the old plan went");
  broadcast_status();
}

std::vector<SimulationResult> LiveScheduler::recorded_before_switches() const {
  std::vector<SimulationResult> out;
  for (const auto& seg : segments_) {
    auto description = run_from_description(seg.description, "the scheduler");
    const auto warmup = description.warmup;
    LiveRun run(std::move(description), warmup);
    run.set_horizon(now());
    run.apply(seg.events);
    out.push_back(run.snapshot());
  }
  return out;
}

LiveScheduler::~LiveScheduler() = default;

std::optional<std::uint16_t> LiveScheduler::metrics_port() const {
  if (!metrics_) return std::nullopt;
  return metrics_->port();
}

void LiveScheduler::log(const std::string& line) const {
  if (log_) log_(line);
}

Time LiveScheduler::now() const {
  return Duration::nanoseconds(
      std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now() - origin_).count());
}

TimerId LiveScheduler::create_timer(std::uint64_t token) {
  timer_tokens_.push_back(token);
  return timers_.add_slot();
}

void LiveScheduler::arm(TimerId timer, Time at) {
  timers_.set(timer, TimerKey{at, ++timer_seq_});
}

void LiveScheduler::disarm(TimerId timer) {
  timers_.erase(timer);
}

LiveScheduler::Peer* LiveScheduler::worker_of(std::uint32_t server) {
  if (server_worker_[server] == 0) return nullptr;
  for (auto& p : peers_)
    if (p->id == server_worker_[server] && !p->closed) return p.get();
  return nullptr;
}

std::size_t LiveScheduler::workers_connected() const {
  return static_cast<std::size_t>(std::ranges::count_if(server_worker_, [](std::uint64_t id) { return id != 0; }));
}

std::vector<std::string> LiveScheduler::missing_servers() const {
  std::vector<std::string> out;
  for (std::size_t s = 0; s < server_worker_.size(); ++s)
    if (server_used_[s] && server_worker_[s] == 0) out.push_back(prepared_.result.server_names[s]);
  return out;
}

// ---- Executor ---------------------------------------------------------------------------------

void LiveScheduler::execute(Batch batch) {
  const Time t = now();
  fanout_.on_dispatch(batch, t);
  const auto server = slot_server_.at(batch.gpu);
  Peer* worker = worker_of(server);
  if (!worker) {
    // Nobody runs this slot now: its requests end here with the reason, and the data plane hears
    // the batch finish when it expected to, as if the slot had run it (it plans with that time).
    for (const auto& r : batch.requests)
      dropped(r, DropReason::WorkerLost);
    fanout_.on_batch(batch, t, t, false);
    lost_completions_.emplace(
        std::max(t, batch.predicted_end),
        BatchDone{batch.id, batch.gpu, batch.model, static_cast<std::uint32_t>(batch.requests.size()), t, t});
    return;
  }
  RunOrder order;
  order.batch = wire_id(batch.id);
  order.slot = batch.gpu;
  order.model = batch.model;
  order.kernel = batch.kernel;
  if (const auto* d = prepared_.pipeline_deployment) {
    const auto& blocks = d->kernels.at(batch.model).at(batch.kernel);
    order.block_begin = static_cast<std::uint32_t>(blocks.begin);
    order.block_end = static_cast<std::uint32_t>(blocks.end);
  }
  order.requests.reserve(batch.requests.size());
  for (const auto& r : batch.requests)
    order.requests.push_back(r.id);
  order.start_in_ns = std::max<std::int64_t>(0, (batch.start - t).count_ns());
  order.run_ns =
      prepared_.times->of(batch.model, batch.kernel, batch.gpu, static_cast<int>(batch.requests.size())).count_ns();
  worker->conn->send(FrameType::Batch, encode_order(order));
  try {
    worker->conn->flush();
  } catch (const LiveError&) {
    // Noticed by the poll loop, which loses the worker and this batch with it.
  }
  counters_.dispatch_overhead.add(Duration::nanoseconds(
      std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now() - event_began_).count()));
  // A report later than the batch's own run time plus 50 ms (or half again as long) is overdue.
  const auto overdue = t + Duration::nanoseconds(order.start_in_ns + order.run_ns +
                                                 std::max<std::int64_t>(50'000'000, order.run_ns / 2));
  batches_.emplace(order.batch, InFlightBatch{std::move(batch), server, t, overdue});
}

bool LiveScheduler::preempt(BatchId, std::uint32_t) {
  return false;  // refused at construction for the systems that preempt
}

void LiveScheduler::transfer(Transfer t) {
  const Time at = now();
  const auto sender = slot_server_.at(t.from_gpu);
  const auto receiver = slot_server_.at(t.to_gpu);
  auto done_at = [&](Time when) {
    return TransferDone{t.id, t.batch, t.from_gpu, t.to_gpu, std::max(at, t.not_before), when};
  };
  if (sender == receiver) {
    // Between vGPUs of one server the feature map stays in host memory (PPipe §4.5's local hand-off).
    const Time when = std::max(at, t.not_before);
    fanout_.on_transfer(t, when, when);
    instant_transfers_.emplace(when, done_at(when));
    return;
  }
  Peer* from = worker_of(sender);
  Peer* to = worker_of(receiver);
  if (!from || !to || to->feature_port == 0) {
    for (const auto& r : t.requests)
      dropped(r, DropReason::WorkerLost);
    instant_transfers_.emplace(at, done_at(at));
    return;
  }
  SendOrder order;
  order.transfer = wire_id(t.id);
  order.from_slot = t.from_gpu;
  order.to_slot = t.to_gpu;
  order.bytes = t.bytes;
  order.start_in_ns = std::max<std::int64_t>(0, (t.not_before - at).count_ns());
  order.peer_host = to->feature_host;
  order.peer_port = to->feature_port;
  if (!t.requests.empty()) order.model = t.requests.front().model;
  order.boundary = stage_end(order.model, t.from_gpu);
  order.requests.reserve(t.requests.size());
  for (const auto& r : t.requests)
    order.requests.push_back(r.id);
  from->conn->send(FrameType::Batch, encode_order(order));
  // A feature map not delivered within a second of its start is given up (the receiver is gone
  // or unreachable, and no report may ever come).
  const auto overdue = at + Duration::nanoseconds(order.start_in_ns) + Duration::seconds(1);
  transfers_.emplace(order.transfer, InFlightTransfer{std::move(t), sender, receiver, at, overdue});
}

// ---- Outcomes ---------------------------------------------------------------------------------

void LiveScheduler::record_outcome(const Request& r, OutcomeStatus status, DropReason reason, Time end) {
  const auto it = ledger_.find(r.id);
  if (it == ledger_.end()) return;
  const Owner owner = it->second;
  ledger_.erase(it);
  switch (status) {
    case OutcomeStatus::OnTime:
      ++counters_.on_time[r.model];
      break;
    case OutcomeStatus::Late:
      ++counters_.late[r.model];
      break;
    case OutcomeStatus::Dropped:
      ++counters_.dropped[r.model][static_cast<std::size_t>(reason)];
      break;
  }
  for (auto& p : peers_)
    if (p->id == owner.peer && !p->closed) {
      p->outcomes.push_back(ClientOutcome{owner.client_id, status, reason, (end - r.arrival).count_ns()});
      break;
    }
}

void LiveScheduler::dropped(const Request& request, DropReason reason) {
  if (request.internal || !ledger_.contains(request.id)) return;  // ended already (its worker was lost)
  const Time t = now();
  fanout_.on_drop(request, reason, t);
  record_outcome(request, OutcomeStatus::Dropped, reason, t);
}

void LiveScheduler::completed(const Request& request, Time start, Time end) {
  if (request.internal || !ledger_.contains(request.id)) return;
  fanout_.on_complete(request, start, end);
  record_outcome(request, end <= request.deadline ? OutcomeStatus::OnTime : OutcomeStatus::Late,
                 DropReason::DeadlineUnreachable, end);
}

void LiveScheduler::finish_batch(std::uint64_t id, std::int64_t run_ns) {
  const auto it = batches_.find(id);
  if (it == batches_.end()) return;  // lost with its worker, or reported twice
  InFlightBatch done = std::move(it->second);
  batches_.erase(it);
  const Time end = now();
  const Time start = std::max(done.dispatched, end - Duration::nanoseconds(run_ns));
  const auto& b = done.batch;
  ++counters_.batches[b.gpu];
  counters_.busy_ns[b.gpu] += (end - start).count_ns();
  fanout_.on_batch(b, start, end, true);
  if (b.final_stage)
    for (const auto& r : b.requests)
      completed(r, start, end);
  prepared_.plane->on_batch_done(
      BatchDone{b.id, b.gpu, b.model, static_cast<std::uint32_t>(b.requests.size()), start, end});
}

void LiveScheduler::finish_transfer(std::uint64_t id) {
  const auto it = transfers_.find(id);
  if (it == transfers_.end()) return;
  InFlightTransfer done = std::move(it->second);
  transfers_.erase(it);
  const Time end = now();
  const Time start = std::min(end, std::max(done.issued, done.transfer.not_before));
  ++counters_.transfers;
  counters_.transfer_bytes += done.transfer.bytes;
  fanout_.on_transfer(done.transfer, start, end);
  const auto& t = done.transfer;
  prepared_.plane->on_transfer_done(TransferDone{t.id, t.batch, t.from_gpu, t.to_gpu, start, end});
}

void LiveScheduler::fail_transfer(std::uint64_t id, const std::string& why) {
  const auto it = transfers_.find(id);
  if (it == transfers_.end()) return;
  InFlightTransfer lost = std::move(it->second);
  transfers_.erase(it);
  log("transfer " + std::to_string(lost.transfer.id) + " given up: " + why);
  for (const auto& r : lost.transfer.requests)
    dropped(r, DropReason::WorkerLost);
  const auto& x = lost.transfer;
  prepared_.plane->on_transfer_done(TransferDone{x.id, x.batch, x.from_gpu, x.to_gpu, lost.issued, now()});
}

void LiveScheduler::lose_batch(InFlightBatch lost, DropReason reason) {
  const Time t = now();
  const auto& b = lost.batch;
  fanout_.on_batch(b, lost.dispatched, t, false);
  for (const auto& r : b.requests)
    dropped(r, reason);
  prepared_.plane->on_batch_done(
      BatchDone{b.id, b.gpu, b.model, static_cast<std::uint32_t>(b.requests.size()), lost.dispatched, t});
}

void LiveScheduler::lose_worker(std::uint32_t server, const std::string& why) {
  server_worker_[server] = 0;
  server_doubted_[server] = false;
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
  for (auto& b : lost)
    lose_batch(std::move(b), DropReason::WorkerLost);
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

// What a worker runs: the run's models (orders name them by index) and the server's slots.
nlohmann::json LiveScheduler::assignment_for(std::uint32_t server) const {
  const auto& result = prepared_.result;
  nlohmann::json slots = nlohmann::json::array();
  for (std::uint32_t g = 0; g < slot_server_.size(); ++g)
    if (slot_server_[g] == server)
      slots.push_back(
          {{"slot", g}, {"name", result.gpus[g]}, {"type", result.gpu_types[g]}, {"share", result.gpu_shares[g]}});
  return {{"node", result.server_names[server]}, {"models", result.models}, {"slots", slots}};
}

// The block a pipeline stage on `slot` ends at: where the feature maps it sends enter the next.
std::uint32_t LiveScheduler::stage_end(std::uint32_t model, std::uint32_t slot) const {
  const auto* d = prepared_.pipeline_deployment;
  if (!d) return 0;
  for (const auto p : d->model_pipelines.at(model))
    for (const auto& stage : d->pipelines[p].stages)
      if (std::ranges::find(stage.pool, slot) != stage.pool.end()) return static_cast<std::uint32_t>(stage.blocks.end);
  return 0;
}

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
  nlohmann::json workers = nlohmann::json::array();
  for (std::size_t s = 0; s < server_worker_.size(); ++s)
    workers.push_back({{"server", prepared_.result.server_names[s]},
                       {"connected", server_worker_[s] != 0},
                       {"used", static_cast<bool>(server_used_[s])}});
  const nlohmann::json status = {{"type", "status"},
                                 {"now_ns", now().count_ns()},
                                 {"workers", workers},
                                 {"missing_servers", missing_servers()},
                                 {"outstanding", ledger_.size()},
                                 {"switching", pending_ != nullptr},
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
  if (peer.hello.role == PeerRole::Worker && peer.server != UINT32_MAX && server_worker_[peer.server] == peer.id)
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
    const auto& names = prepared_.result.server_names;
    const auto it = std::ranges::find(names, peer.hello.name);
    std::string why;
    if (it == names.end()) {
      why = "no server named '" + peer.hello.name + "' in the cluster (servers:";
      for (const auto& n : names)
        why += " " + n;
      why += ")";
    } else if (server_worker_[static_cast<std::size_t>(it - names.begin())] != 0) {
      why = "server '" + peer.hello.name + "' already has a worker connected";
    }
    if (!why.empty()) {
      ++counters_.connections_refused;
      peer.conn->send_raw(FrameEncoder::preamble());
      log("refused worker: " + why);
      close_peer(peer, why, true);
      return;
    }
    peer.server = static_cast<std::uint32_t>(it - names.begin());
    peer.feature_host = peer.source.empty() ? "127.0.0.1" : peer.source;
  }
  peer.welcomed = true;
  gate_.welcomed(peer.id, peer.hello.role == PeerRole::Worker);
  peer.conn->set_max_frame_bytes(kDefaultMaxFrameBytes);
  peer.conn->send_raw(FrameEncoder::preamble());
  peer.conn->send(FrameType::Welcome, welcome_for(peer).dump());
  if (peer.hello.role == PeerRole::Worker) {
    server_worker_[peer.server] = peer.id;
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
    if (pending_) {
      held_.push_back(r);  // a plan switch is flushing the current plane; it arrives in the next
      continue;
    }
    fanout_.on_arrival(r);
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
    if (ours && server_doubted_[peer.server] && !std::ranges::any_of(batches_, [&](const auto& kv) {
          return kv.second.server == peer.server && now() > kv.second.overdue;
        })) {
      server_doubted_[peer.server] = false;
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
    const auto port = j["feature_port"];
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
      reply["message"] = "switching to " + pending_->result.system + ": flushing the current plan";
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

void LiveScheduler::fire_due_timers() {
  for (;;) {
    const Time t = now();
    Time best = kNever;
    int which = -1;
    if (!timers_.empty() && timers_.top_key().at <= t) {
      best = timers_.top_key().at;
      which = 0;
    }
    if (!lost_completions_.empty() && lost_completions_.begin()->first <= t &&
        lost_completions_.begin()->first < best) {
      best = lost_completions_.begin()->first;
      which = 1;
    }
    if (!instant_transfers_.empty() && instant_transfers_.begin()->first <= t &&
        instant_transfers_.begin()->first < best) {
      best = instant_transfers_.begin()->first;
      which = 2;
    }
    if (which < 0) return;
    // The overhead of what this firing dispatches counts from when it was due, so the loop's own
    // lateness is in it.
    event_began_ = origin_ + std::chrono::nanoseconds(best.count_ns());
    if (which == 0) {
      const auto slot = timers_.pop();
      prepared_.plane->on_timer(timer_tokens_[slot]);
    } else if (which == 1) {
      const auto done = lost_completions_.begin()->second;
      lost_completions_.erase(lost_completions_.begin());
      prepared_.plane->on_batch_done(done);
    } else {
      const auto done = instant_transfers_.begin()->second;
      instant_transfers_.erase(instant_transfers_.begin());
      prepared_.plane->on_transfer_done(done);
    }
  }
}

void LiveScheduler::publish() {
  for (auto& p : peers_)
    if (!p->closed && !p->outcomes.empty()) {
      p->conn->send(FrameType::Outcome, encode_outcomes(p->outcomes));
      p->outcomes.clear();
    }
  if (events_.size() > 0) {
    counters_.events = events_.records();
    counters_.event_bytes += events_.size();
    const auto bytes = events_.take();
    if (options_.keep_events) kept_events_.insert(kept_events_.end(), bytes.begin(), bytes.end());
    for (auto& p : peers_) {
      if (p->closed || !p->welcomed || p->hello.role != PeerRole::Gui) continue;
      if (p->conn->buffered() > options_.subscriber_limit_bytes) {
        // Never wait for a subscriber: the data plane's pace is the run's, not the viewer's.
        ++counters_.subscribers_dropped;
        close_peer(*p,
                   "too slow: " + std::to_string(p->conn->buffered() >> 20) +
                       " MiB of events not yet read; reconnect to follow again",
                   true);
        continue;
      }
      p->conn->send(FrameType::Events, bytes);
    }
  }
  if (std::chrono::steady_clock::now() - last_status_ > kStatusEvery) broadcast_status();
  for (auto& p : peers_) {
    if (p->closed || !p->conn->wants_write()) continue;
    try {
      p->conn->flush();
    } catch (const LiveError& e) {
      close_peer(*p, e.what(), false);
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
    if (at > b.overdue && !server_doubted_[b.server] && server_worker_[b.server] != 0) {
      server_doubted_[b.server] = true;
      doubted.emplace_back(b.server, b.batch.id);
    }
  for (const auto& [server, batch] : doubted) {
    ++counters_.workers_doubted;
    set_server_available(server, false);
    log("worker of " + prepared_.result.server_names[server] + " is late with batch " + std::to_string(batch) +
        "; planning without its GPUs until it answers");
  }
}

void LiveScheduler::run(const std::atomic<bool>& stop) {
  use_fine_timer_slack();
  std::vector<pollfd> fds;
  std::vector<Frame> frames;
  auto last_liveness = std::chrono::steady_clock::now();
  while (!stop.load(std::memory_order_relaxed)) {
    fds.clear();
    const bool accepting = std::chrono::steady_clock::now() >= accept_paused_until_;
    fds.push_back({accepting ? listener_.native_handle() : -1, POLLIN, 0});
    const auto polled = std::chrono::steady_clock::now();
    for (const auto& p : peers_) {
      // A source that failed too many hellos has its next ones left unread for a while.
      const bool held = !p->welcomed && gate_.holds(p->source, polled);
      fds.push_back({p->closed || held ? -1 : p->conn->native_handle(),
                     static_cast<short>(POLLIN | (p->conn->wants_write() ? POLLOUT : 0)), 0});
    }
    // Sleep until the next timer is due, and at most 50 ms (stop flag, liveness).
    Time next = now() + Duration::milliseconds(50);
    if (!timers_.empty()) next = std::min(next, timers_.top_key().at);
    if (!lost_completions_.empty()) next = std::min(next, lost_completions_.begin()->first);
    if (!instant_transfers_.empty()) next = std::min(next, instant_transfers_.begin()->first);
    const auto wait_ns = std::max<std::int64_t>(0, (next - now()).count_ns());
    const timespec timeout{static_cast<time_t>(wait_ns / 1'000'000'000), static_cast<long>(wait_ns % 1'000'000'000)};
    const int ready = ::ppoll(fds.data(), fds.size(), &timeout, nullptr);
    if (ready < 0 && errno != EINTR) throw LiveError(std::string("poll: ") + std::strerror(errno));
    fire_due_timers();
    if (ready > 0) {
      // Peers first, newcomers after: a connection accepted last time has its hello read before
      // any newcomer can push it out of the gate.
      for (std::size_t i = 0; i < peers_.size() && i + 1 < fds.size(); ++i) {
        auto& p = *peers_[i];
        if (p.closed || fds[i + 1].revents == 0) continue;
        frames.clear();
        const bool open = p.conn->receive(frames);
        handle_frames(p, frames);
        if (!open && !p.closed) {
          const bool bad_magic = !p.welcomed && p.conn->error().find("magic") != std::string::npos;
          if (!p.conn->error().empty()) ++counters_.connections_refused;
          if (bad_magic) {
            close_peer(p, "not one of ours", false);  // no answer at all
          } else {
            if (!p.conn->error().empty() && !p.welcomed) p.conn->send_raw(FrameEncoder::preamble());
            close_peer(p, p.conn->error().empty() ? "connection closed" : p.conn->error(), !p.conn->error().empty());
          }
        }
      }
      if (fds[0].revents & POLLIN) accept_connections();
    }
    fire_due_timers();
    if (std::chrono::steady_clock::now() - last_liveness > std::chrono::milliseconds(50)) {
      last_liveness = std::chrono::steady_clock::now();
      check_liveness();
    }
    maybe_switch();
    publish();
    if (metrics_ && std::chrono::steady_clock::now() - metrics_refreshed_ > std::chrono::milliseconds(250)) {
      metrics_refreshed_ = std::chrono::steady_clock::now();
      metrics_->publish(prometheus_text());
    }
    std::erase_if(peers_, [](const std::unique_ptr<Peer>& p) { return p->closed; });
  }
  for (auto& p : peers_)
    if (!p->closed && p->welcomed) {
      try {
        p->conn->send(FrameType::Refused, std::string_view("the scheduler is shutting down"));
        p->conn->drain(std::chrono::milliseconds(200));
      } catch (const LiveError&) {
        // It is going too.
      }
    }
  peers_.clear();
}

SimulationResult LiveScheduler::recorded() const {
  LiveRun run(run_from_description(describe_run(prepared_.result), "the scheduler"), prepared_.result.warmup);
  run.set_horizon(now());
  run.apply(kept_events_);
  auto events = events_.bytes();  // not yet published
  run.apply(events);
  return run.snapshot();
}

std::string LiveScheduler::prometheus_text() const {
  const auto& r = prepared_.result;
  std::ostringstream out;
  auto family = [&](const char* name, const char* type, const char* help) {
    out << "# HELP " << name << ' ' << help << "\n# TYPE " << name << ' ' << type << '\n';
  };
  family("servescope_requests_total", "counter", "Requests that arrived at the scheduler.");
  for (std::size_t m = 0; m < r.models.size(); ++m)
    out << "servescope_requests_total{model=\"" << label(r.models[m]) << "\"} " << counters_.arrivals[m] << '\n';
  family("servescope_requests_completed_total", "counter", "Requests completed, by whether they met their SLO.");
  for (std::size_t m = 0; m < r.models.size(); ++m) {
    out << "servescope_requests_completed_total{model=\"" << label(r.models[m]) << "\",on_time=\"true\"} "
        << counters_.on_time[m] << '\n';
    out << "servescope_requests_completed_total{model=\"" << label(r.models[m]) << "\",on_time=\"false\"} "
        << counters_.late[m] << '\n';
  }
  family("servescope_requests_dropped_total", "counter", "Requests dropped, by reason.");
  for (std::size_t m = 0; m < r.models.size(); ++m)
    for (int d = 0; d < kDropReasonCount; ++d)
      out << "servescope_requests_dropped_total{model=\"" << label(r.models[m]) << "\",reason=\""
          << to_string(static_cast<DropReason>(d)) << "\"} " << counters_.dropped[m][static_cast<std::size_t>(d)]
          << '\n';
  family("servescope_requests_outstanding", "gauge", "Requests in the data plane now.");
  out << "servescope_requests_outstanding " << ledger_.size() << '\n';
  family("servescope_batches_total", "counter", "Batches completed per vGPU slot.");
  for (std::size_t g = 0; g < r.gpus.size(); ++g)
    out << "servescope_batches_total{gpu=\"" << label(r.gpus[g]) << "\"} " << counters_.batches[g] << '\n';
  family("servescope_gpu_busy_seconds_total", "counter", "Time each vGPU slot spent running batches.");
  for (std::size_t g = 0; g < r.gpus.size(); ++g)
    out << "servescope_gpu_busy_seconds_total{gpu=\"" << label(r.gpus[g]) << "\"} "
        << static_cast<double>(counters_.busy_ns[g]) / 1e9 << '\n';
  family("servescope_transfers_total", "counter", "Feature maps moved between workers.");
  out << "servescope_transfers_total " << counters_.transfers << '\n';
  family("servescope_transfer_bytes_total", "counter", "Bytes of feature maps moved between workers.");
  out << "servescope_transfer_bytes_total " << counters_.transfer_bytes << '\n';
  family("servescope_workers_connected", "gauge", "Workers connected now.");
  out << "servescope_workers_connected " << workers_connected() << '\n';
  family("servescope_workers_lost_total", "counter", "Workers that died or stopped answering.");
  out << "servescope_workers_lost_total " << counters_.workers_lost << '\n';
  family("servescope_workers_doubted_total", "counter",
         "Times a worker's overdue batch took its GPUs out of planning until it answered.");
  out << "servescope_workers_doubted_total " << counters_.workers_doubted << '\n';
  family("servescope_subscribers", "gauge", "GUI subscribers connected now.");
  out << "servescope_subscribers " << std::ranges::count_if(peers_, [](const auto& p) {
    return !p->closed && p->welcomed && p->hello.role == PeerRole::Gui;
  }) << '\n';
  family("servescope_subscribers_dropped_total", "counter", "Subscribers dropped for reading too slowly.");
  out << "servescope_subscribers_dropped_total " << counters_.subscribers_dropped << '\n';
  family("servescope_connections_refused_total", "counter", "Connections refused (token, protocol, role).");
  out << "servescope_connections_refused_total " << counters_.connections_refused << '\n';
  family("servescope_connections_evicted_total", "counter",
         "Connections closed before their hello to make room for newer ones.");
  out << "servescope_connections_evicted_total " << counters_.connections_evicted << '\n';
  family("servescope_events_total", "counter", "Run events streamed to subscribers.");
  out << "servescope_events_total " << counters_.events << '\n';
  family("servescope_dispatch_overhead_seconds", "summary",
         "From the event that triggered a dispatch to the batch order on the worker's socket.");
  for (const double q : {0.5, 0.9, 0.99})
    out << "servescope_dispatch_overhead_seconds{quantile=\"" << q << "\"} "
        << counters_.dispatch_overhead.quantile(q).to_s() << '\n';
  out << "servescope_dispatch_overhead_seconds_count " << counters_.dispatch_overhead.count() << '\n';
  return out.str();
}

}  // namespace servescope::engine::live
