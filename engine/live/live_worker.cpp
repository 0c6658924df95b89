#include "engine/live/live_worker.h"

#include <poll.h>

#include <algorithm>
#include <cstring>
#include <map>
#include <nlohmann/json.hpp>
#include <thread>
#include <unordered_map>

#include "engine/live/byte_codec.h"
#include "engine/live/certificates.h"
#include "engine/live/connection.h"
#include "engine/live/handshake.h"
#include "engine/live/hello_gate.h"
#include "engine/live/json_payload.h"
#include "model/profile/gpu_share.h"

namespace servescope::engine::live {
namespace {

// Short: the worker's loop waits on these, and the scheduler gives up on a worker silent for 1 s.
constexpr std::chrono::milliseconds kPeerTimeout{250};
// After failing to reach a peer, sends to it fail at once for this long.
constexpr std::chrono::milliseconds kPeerRetryAfter{1000};
// Feature-map connections carry chunks of up to kFeatureMapChunkBytes plus their header.
constexpr std::uint32_t kFeatureFrameLimit = static_cast<std::uint32_t>(kFeatureMapChunkBytes + 64);
constexpr std::uint32_t kHelloLimit = 4096;  // before a peer's hello is accepted

// Other workers connect here, all at once after a plan switch, and often from one address: the
// room is theirs to share, and a stranger waiting past kPeerTimeout is cut off.
HelloGateLimits feature_gate_limits() {
  HelloGateLimits limits;
  limits.waiting = limits.per_source = 16;
  limits.reserved_for_workers = 8;
  limits.deadline = limits.pressed_deadline = kPeerTimeout;
  return limits;
}

// The welcome's (or an `assignment` control message's) models and slots. Malformed: the
// scheduler is not speaking this protocol.
WorkerAssignment parse_assignment(const nlohmann::json& j) {
  WorkerAssignment a;
  try {
    if (j.contains("models"))
      for (const auto& m : j.at("models"))
        a.models.push_back(m.get<std::string>());
    if (j.contains("slots"))
      for (const auto& slot : j.at("slots")) {
        const auto share = GpuShare::parse(slot.at("share").get<std::string>());
        if (!share) throw ProtocolError("slot share " + slot.at("share").get<std::string>() + " is not a share");
        a.slot_share[slot.at("slot").get<std::uint32_t>()] = share->fraction();
      }
  } catch (const nlohmann::json::exception& e) {
    throw ProtocolError(std::string("the scheduler's assignment is malformed: ") + e.what());
  }
  return a;
}

}  // namespace

// One connection to the scheduler, from welcome to loss.
class LiveWorker::Session {
  // A connection from another worker: its hello first, then feature maps.
  struct Inbound {
    std::uint64_t id = 0;
    std::string source;  // its address
    std::unique_ptr<Connection> conn;
    bool welcomed = false;
  };

 public:
  Session(LiveWorker& worker, Connection scheduler, TcpListener& features)
      : w_(worker), scheduler_(std::move(scheduler)), features_(features) {}

  // Returns when the scheduler is gone or `stop` is set; why in the log.
  void serve(const std::atomic<bool>& stop, const std::vector<Frame>& pending) {
    nlohmann::json hello_more = {{"feature_port", features_.port()}};
    // A listener on one address says which; on all of them the scheduler uses the one it sees.
    if (!w_.feature_address_.empty() && w_.feature_address_ != "0.0.0.0")
      hello_more["feature_host"] = w_.feature_address_;
    scheduler_.send(FrameType::Control, hello_more.dump());
    if (!handle(pending)) return;
    std::vector<pollfd> fds;
    std::vector<Frame> frames;
    while (!stop.load(std::memory_order_relaxed)) {
      fds.clear();
      fds.push_back(
          {scheduler_.native_handle(), static_cast<short>(POLLIN | (scheduler_.wants_write() ? POLLOUT : 0)), 0});
      fds.push_back({features_.native_handle(), POLLIN, 0});
      const auto polled = SteadyClock::now();
      for (const auto& in : inbound_)  // a source that failed too many hellos waits its turn
        fds.push_back({!in.welcomed && gate_.holds(in.source, polled) ? -1 : in.conn->native_handle(), POLLIN, 0});
      for (const auto& [where, out] : outbound_)
        fds.push_back({out->native_handle(), static_cast<short>(POLLIN | (out->wants_write() ? POLLOUT : 0)), 0});
      fds.push_back({w_.executor_->wake_fd(), POLLIN, 0});  // negative: ignored by poll
      auto wake = SteadyClock::now() + std::chrono::milliseconds(50);
      if (const auto next = w_.executor_->next_event()) wake = std::min(wake, *next);
      if (!sends_.empty()) wake = std::min(wake, sends_.begin()->first);
      const auto wait_ns = std::max<std::int64_t>(
          0, std::chrono::duration_cast<std::chrono::nanoseconds>(wake - SteadyClock::now()).count());
      const timespec timeout{static_cast<time_t>(wait_ns / 1'000'000'000), static_cast<long>(wait_ns % 1'000'000'000)};
      if (::ppoll(fds.data(), fds.size(), &timeout, nullptr) < 0 && errno != EINTR)
        throw LiveError(std::string("poll: ") + std::strerror(errno));

      if (fds[0].revents != 0) {
        frames.clear();
        const bool open = scheduler_.receive(frames);
        if (!handle(frames)) return;
        if (!open) {
          log("scheduler connection closed" + (scheduler_.error().empty() ? "" : ": " + scheduler_.error()));
          return;
        }
      }
      // A peer's trouble (a reset, a stranger, out of descriptors) costs that connection, never
      // the session with the scheduler.
      try {
        if (fds[1].revents & POLLIN) accept_peer();
      } catch (const LiveError& e) {
        log(std::string("feature-map connection not accepted: ") + e.what());
      }
      receive_feature_maps();
      // Receivers only ever answer a refusal; a closed one is forgotten, not polled forever.
      for (auto& [where, out] : outbound_) {
        std::vector<Frame> answers;
        if (!out->receive(answers)) {
          log("feature-map connection to " + where + " closed" + (out->error().empty() ? "" : ": " + out->error()));
          out->close();
        }
      }
      const auto now = SteadyClock::now();
      for (const auto& done : w_.executor_->finished(now)) {
        ++w_.stats_.batches;
        scheduler_.send(FrameType::BatchDone, encode_report(done));
      }
      while (!sends_.empty() && sends_.begin()->first <= now) {
        const auto order = sends_.begin()->second;
        sends_.erase(sends_.begin());
        send_feature_map(order);
      }
      for (auto& [where, out] : outbound_)
        try {
          out->flush();
        } catch (const LiveError& e) {
          log("feature-map connection to " + where + " broke: " + e.what());
          out->close();
        }
      std::erase_if(outbound_, [](const auto& kv) { return kv.second->native_handle() < 0; });
      if (now - scheduler_.last_heard() > w_.options_.liveness) {
        log("scheduler silent for more than " + std::to_string(w_.options_.liveness.count()) + " ms");
        return;
      }
      if (now - scheduler_.last_sent() > w_.options_.heartbeat)
        scheduler_.send(FrameType::Heartbeat, std::string_view{});
      try {
        scheduler_.flush();
      } catch (const LiveError& e) {
        log(std::string("scheduler connection broke: ") + e.what());
        return;
      }
    }
    scheduler_.send(FrameType::Refused, std::string_view("the worker is shutting down"));
    scheduler_.drain(std::chrono::milliseconds(200));
  }

 private:
  void log(const std::string& line) const {
    if (w_.log_) w_.log_(line);
  }

  // False when the scheduler ended the session.
  bool handle(const std::vector<Frame>& frames) {
    for (const auto& f : frames) {
      switch (f.type) {
        case FrameType::Batch: {
          const auto order = decode_order(f.payload);
          if (const auto* run = std::get_if<RunOrder>(&order)) {
            w_.executor_->submit(*run, SteadyClock::now());
          } else {
            const auto& send = std::get<SendOrder>(order);
            sends_.emplace(SteadyClock::now() + std::chrono::nanoseconds(send.start_in_ns), send);
          }
          break;
        }
        case FrameType::Heartbeat:
          break;
        case FrameType::Control: {
          // After a plan switch the scheduler says again what this worker runs.
          const auto message = parse_payload_or_nothing(f.payload);
          if (message && message->is_object() && message->value("type", "") == "assignment")
            w_.executor_->assign(parse_assignment(*message));
          break;
        }
        case FrameType::Refused:
          log("the scheduler said: " + std::string(f.payload.begin(), f.payload.end()));
          return false;
        default:
          throw ProtocolError("the scheduler sent a " + std::string(to_string(f.type)) + " frame");
      }
    }
    return true;
  }

  // Feature-map connections are answered inside the loop without waiting: a peer that connects
  // and says nothing costs a slot until it is cut off, never the worker's time.
  void accept_peer() {
    for (;;) {
      auto stream = features_.accept(std::chrono::milliseconds(0));
      if (!stream) return;
      Inbound in;
      in.id = next_inbound_++;
      in.source = stream->peer_address();
      const auto admission = gate_.arrive(in.id, in.source, SteadyClock::now(), [this](std::uint64_t id) {
        const auto it = std::ranges::find(inbound_, id, &Inbound::id);
        return it != inbound_.end() && it->conn->native_handle() >= 0 && it->conn->heard_anything();
      });
      if (admission.evicted)
        for (auto& other : inbound_)
          if (other.id == *admission.evicted) other.conn->close();
      if (!admission.admitted) continue;
      if (w_.options_.tls) stream->expect_tls(w_.options_.tls);
      in.conn = std::make_unique<Connection>(std::move(*stream), FrameDecoder(kHelloLimit), FrameEncoder());
      inbound_.push_back(std::move(in));
    }
  }

  // A peer's hello: welcomed with the token, refused with the reason otherwise.
  bool welcome_peer(Inbound& in, const Frame& first) {
    auto checked = accept_hello(first, w_.options_.token);
    // Feature maps come from workers only: with TLS, from a worker's certificate.
    if (std::holds_alternative<Hello>(checked))
      if (auto why = role_refusal(in.conn->stream(), "worker"); !why.empty()) checked = Refusal{std::move(why)};
    in.conn->send_raw(FrameEncoder::preamble());
    if (const auto* refusal = std::get_if<Refusal>(&checked)) {
      if (const auto line = gate_.failed(in.source, refusal->reason, SteadyClock::now()))
        log("feature-map port: " + *line);
      in.conn->send(FrameType::Refused, refusal->reason);
      in.conn->drain(std::chrono::milliseconds(50));
      return false;
    }
    in.conn->send(FrameType::Welcome, std::string_view(R"({"server":"servescope-worker"})"));
    in.conn->set_max_frame_bytes(kFeatureFrameLimit);
    in.welcomed = true;
    gate_.welcomed(in.id, true);
    return true;
  }

  void take_feature_map(const Frame& f) {
    if (f.type == FrameType::Heartbeat) return;
    if (f.type != FrameType::FeatureMap)
      throw ProtocolError("a " + std::string(to_string(f.type)) + " frame on a feature-map connection");
    auto h = decode_feature_map(f.payload);
    auto& got = received_[h.transfer];
    if (got.total == 0) {
      got.total = h.total_bytes;
    } else if (got.total != h.total_bytes) {
      throw ProtocolError("transfer " + std::to_string(h.transfer) + " said " + std::to_string(got.total) +
                          " bytes, then " + std::to_string(h.total_bytes));
    }
    if (got.bytes == 0 && got.data.empty() && w_.executor_->real_feature_maps()) {
      // Sized by what the model says, before a byte is kept: a peer cannot make it buffer more.
      const auto expected = w_.executor_->feature_map_bytes(h.model, h.boundary, h.requests.size());
      if (!expected)
        throw ProtocolError("a feature map of model " + std::to_string(h.model) + " at block " +
                            std::to_string(h.boundary) + ", which this worker does not run");
      if (*expected != h.total_bytes)
        throw ProtocolError("a feature map of " + std::to_string(h.total_bytes) + " bytes for " +
                            std::to_string(h.requests.size()) + " samples; they take " + std::to_string(*expected));
      got.data.reserve(h.total_bytes);
    }
    if (got.bytes + h.chunk.size() > h.total_bytes)
      throw ProtocolError("transfer " + std::to_string(h.transfer) + " sent more than its " +
                          std::to_string(h.total_bytes) + " bytes");
    got.bytes += h.chunk.size();
    if (w_.executor_->real_feature_maps()) got.data.insert(got.data.end(), h.chunk.begin(), h.chunk.end());
    w_.stats_.feature_bytes_received += h.chunk.size();
    if (got.bytes == h.total_bytes) {
      auto data = std::move(got.data);
      received_.erase(h.transfer);
      if (w_.executor_->real_feature_maps())
        w_.executor_->received_feature_map(h.model, h.boundary, h.requests, std::move(data));
      ++w_.stats_.feature_maps_received;
      scheduler_.send(FrameType::BatchDone, encode_report(ReceiveReport{h.transfer, h.total_bytes}));
    }
  }

  void receive_feature_maps() {
    std::vector<Frame> frames;
    const auto now = SteadyClock::now();
    const auto overdue = gate_.overdue(now);
    for (const auto& line : gate_.summaries(now))
      log("feature-map port: " + line);
    for (auto& in : inbound_) {
      if (in.conn->native_handle() < 0) continue;  // evicted
      if (!in.welcomed && std::ranges::find(overdue, in.id) != overdue.end()) {
        in.conn->close();  // no hello in time
        continue;
      }
      if (!in.welcomed && gate_.holds(in.source, now)) continue;
      frames.clear();
      const bool open = in.conn->receive(frames);
      try {
        for (const auto& f : frames) {
          if (!in.welcomed) {
            if (!welcome_peer(in, f)) {
              in.conn->close();
              break;
            }
            continue;
          }
          take_feature_map(f);
        }
        in.conn->flush();
      } catch (const LiveError& e) {  // a malformed frame, or the peer gone while we answered
        log(std::string("feature-map connection refused: ") + e.what());
        try {
          in.conn->send(FrameType::Refused, std::string_view(e.what()));
          in.conn->drain(std::chrono::milliseconds(50));
        } catch (const LiveError&) {
          // It left already.
        }
        in.conn->close();
        continue;
      }
      if (!open) {
        // A stranger that failed before its hello (a plain client here on TLS, a certificate
        // refused): logged like a wrong token, and told why where it can read us.
        const auto& error = in.conn->error();
        if (!in.welcomed && !error.empty()) {
          if (const auto line = gate_.failed(in.source, error, now)) log("feature-map port: " + *line);
          if (error.find("magic") == std::string::npos) try {
              in.conn->send_raw(FrameEncoder::preamble());
              in.conn->send(FrameType::Refused, error);
              in.conn->drain(std::chrono::milliseconds(50));
            } catch (const LiveError&) {
              // A failed TLS session takes nothing more.
            }
        }
        in.conn->close();
      }
    }
    std::erase_if(inbound_, [this](const Inbound& in) {
      if (in.conn->native_handle() >= 0) return false;
      gate_.leave(in.id);
      return true;
    });
  }

  void send_feature_map(const SendOrder& order) {
    const auto where = order.peer_host + ":" + std::to_string(order.peer_port);
    auto it = outbound_.find(where);
    if (it == outbound_.end()) {
      const auto failed = unreachable_.find(where);
      if (failed != unreachable_.end() && SteadyClock::now() < failed->second) {
        scheduler_.send(FrameType::BatchDone,
                        encode_report(SendFailedReport{order.transfer, where + " was unreachable moments ago"}));
        return;
      }
      try {
        auto stream = TcpStream::connect(order.peer_host, order.peer_port, kPeerTimeout, w_.options_.tls);
        auto joined = join(stream, Hello{w_.options_.token, PeerRole::Worker, "peer:" + w_.options_.node}, kPeerTimeout,
                           "worker");
        it = outbound_
                 .emplace(where, std::make_unique<Connection>(std::move(stream), std::move(joined.decoder),
                                                              std::move(joined.encoder)))
                 .first;
      } catch (const LiveError& e) {
        // The receiver is gone or unreachable: say so, so the scheduler gives the transfer up now.
        log("cannot reach " + where + " for transfer " + std::to_string(order.transfer) + ": " + e.what());
        unreachable_[where] = SteadyClock::now() + kPeerRetryAfter;
        scheduler_.send(FrameType::BatchDone, encode_report(SendFailedReport{order.transfer, e.what()}));
        return;
      }
    }
    // The stage's real output where the executor computes one, else the profiled size's pattern.
    const bool real = w_.executor_->real_feature_maps();
    const auto map = real ? w_.executor_->feature_map(order) : std::vector<std::uint8_t>{};
    const std::uint64_t total = real ? map.size() : order.bytes;
    const auto head = encode_feature_map_header(order, total);
    std::uint64_t sent = 0;
    do {
      const auto chunk = std::min(total - sent, kFeatureMapChunkBytes);
      std::span<const std::uint8_t> bytes;
      if (real) {
        bytes = std::span<const std::uint8_t>(map).subspan(sent, chunk);
      } else {
        pattern_.resize(chunk);
        fill_feature_map_pattern(pattern_, order.transfer, sent);
        bytes = pattern_;
      }
      it->second->send(FrameType::FeatureMap, head, bytes);
      sent += chunk;
    } while (sent < total);
    ++w_.stats_.feature_maps_sent;
    w_.stats_.feature_bytes_sent += total;
  }

  LiveWorker& w_;
  Connection scheduler_;
  TcpListener& features_;
  std::vector<Inbound> inbound_;
  HelloGate gate_{feature_gate_limits()};
  std::uint64_t next_inbound_ = 1;
  std::map<std::string, std::unique_ptr<Connection>> outbound_;
  std::vector<std::uint8_t> pattern_;  // an emulated map's chunk, reused: megabytes per map
  struct Arriving {
    std::uint64_t total = 0;  // what its first chunk said
    std::uint64_t bytes = 0;
    std::vector<std::uint8_t> data;  // kept only for an executor on real tensors
  };
  std::unordered_map<std::uint64_t, Arriving> received_;  // transfer → what came so far
  std::multimap<SteadyClock::time_point, SendOrder> sends_;
  std::map<std::string, SteadyClock::time_point> unreachable_;  // peer → when to try it again
};

LiveWorker::LiveWorker(WorkerOptions options, std::unique_ptr<WorkerExecutor> executor)
    : options_(std::move(options)), executor_(std::move(executor)) {}

LiveWorker::~LiveWorker() = default;

void LiveWorker::run(const std::atomic<bool>& stop) {
  use_fine_timer_slack();
  // Other workers reach its feature maps where the scheduler reaches it, unless told otherwise:
  // bound to the address its first scheduler connection leaves from.
  std::unique_ptr<TcpListener> features;
  std::chrono::steady_clock::time_point refused_since{};  // epoch: not refused
  const auto where = options_.host + ":" + std::to_string(options_.port);
  bool announced_wait = false;
  while (!stop.load(std::memory_order_relaxed)) {
    TcpStream stream;
    Joined joined;
    try {
      stream = TcpStream::connect(options_.host, options_.port, std::chrono::milliseconds(1000), options_.tls);
      joined = join(stream, Hello{options_.token, PeerRole::Worker, options_.node}, std::chrono::milliseconds(2000));
    } catch (const RefusedError& e) {
      // "Already has a worker": our own previous connection, not yet given up by the scheduler
      // (it notices silence within a second). Anything else is for good.
      const bool duplicate = std::string(e.what()).find("already has a worker") != std::string::npos;
      if (refused_since == std::chrono::steady_clock::time_point{}) refused_since = std::chrono::steady_clock::now();
      if (!duplicate || std::chrono::steady_clock::now() - refused_since > 3 * options_.liveness) throw;
      std::this_thread::sleep_for(options_.reconnect_every);
      continue;
    } catch (const LiveError& e) {
      refused_since = {};  // only back-to-back duplicate refusals count towards giving up
      if (!announced_wait && log_) log_("waiting for the scheduler at " + where + " (" + e.what() + ")");
      announced_wait = true;
      std::this_thread::sleep_for(options_.reconnect_every);
      continue;
    }
    announced_wait = false;
    refused_since = {};
    if (!features) {
      feature_address_ = options_.feature_host.empty() ? stream.local_address() : options_.feature_host;
      check_plain_listener("the worker's feature-map port", feature_address_, options_.tls != nullptr,
                           options_.insecure);
      features = std::make_unique<TcpListener>(0, feature_address_);
      if (log_) log_("feature maps arrive at " + feature_address_ + ":" + std::to_string(features->port()));
    }
    ++stats_.sessions;
    if (log_) log_("joined the scheduler at " + where + " as " + options_.node);
    Session session(*this, Connection(std::move(stream), std::move(joined.decoder), std::move(joined.encoder)),
                    *features);
    try {
      if (const auto welcome = parse_payload_or_nothing(joined.welcome); welcome && welcome->is_object())
        executor_->assign(parse_assignment(*welcome));
      session.serve(stop, joined.pending);
    } catch (const ProtocolError& e) {
      if (log_) log_(std::string("protocol error from the scheduler: ") + e.what());
    }
    // What it held was the scheduler's to re-dispatch or drop; a new session starts empty.
    executor_->clear();
    if (!stop.load()) std::this_thread::sleep_for(options_.reconnect_every);
  }
}

}  // namespace servescope::engine::live
