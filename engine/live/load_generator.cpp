#include "engine/live/load_generator.h"

#include <poll.h>

#include <algorithm>
#include <cstring>
#include <deque>
#include <optional>
#include <ostream>
#include <sstream>
#include <thread>

#include "engine/live/byte_codec.h"
#include "engine/live/connection.h"
#include "engine/live/handshake.h"
#include "engine/live/json_payload.h"
#include "engine/live/messages.h"
#include "engine/sim/arrival_source.h"
#include "model/core/error.h"
#include "model/io/json_cursor.h"
#include "model/io/trace_file.h"

namespace servescope::engine::live {
namespace {

using Clock = std::chrono::steady_clock;

struct Sent {
  std::uint32_t model = 0;
  bool answered = false;
  Clock::time_point at;
};

// The requests sent, by id (0, 1, …), kept from the oldest still awaiting its outcome: answered
// ones at the front are forgotten, so a session of hours holds what is in flight, not its history.
class SentWindow {
 public:
  std::uint64_t push(std::uint32_t model, Clock::time_point at) {
    if (next_ == 0) first_at_ = at;
    window_.push_back({model, false, at});
    return next_++;
  }
  std::uint64_t count() const { return next_; }
  Clock::time_point first_at() const { return first_at_; }
  // The request `id` if it is still awaited, else null (answered, or never sent).
  Sent* awaited(std::uint64_t id) {
    if (id < first_ || id >= next_) return nullptr;
    auto& s = window_[static_cast<std::size_t>(id - first_)];
    return s.answered ? nullptr : &s;
  }
  // Marks `id` answered and forgets the answered run at the front.
  void answer(std::uint64_t id) {
    window_[static_cast<std::size_t>(id - first_)].answered = true;
    while (!window_.empty() && window_.front().answered) {
      window_.pop_front();
      ++first_;
    }
  }
  // Each request still awaited, oldest first.
  template <typename F>
  void for_each_awaited(F&& f) {
    for (std::uint64_t id = first_; id < next_; ++id)
      if (!window_[static_cast<std::size_t>(id - first_)].answered)
        f(id, window_[static_cast<std::size_t>(id - first_)]);
  }

 private:
  std::deque<Sent> window_;
  std::uint64_t first_ = 0, next_ = 0;
  Clock::time_point first_at_;
};

std::int64_t ns_between(Clock::time_point a, Clock::time_point b) {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(b - a).count();
}

}  // namespace

double LoadReport::attainment() const {
  return sent ? static_cast<double>(on_time) / static_cast<double>(sent) : 1.0;
}

double LoadReport::goodput_rps() const {
  return duration_s > 0 ? static_cast<double>(on_time) / duration_s : 0.0;
}

nlohmann::json LoadReport::to_json() const {
  nlohmann::json reasons = nlohmann::json::object();
  for (int d = 0; d < kDropReasonCount; ++d)
    reasons[std::string(to_string(static_cast<DropReason>(d)))] = dropped_by_reason[static_cast<std::size_t>(d)];
  nlohmann::json per_model = nlohmann::json::array();
  for (std::size_t m = 0; m < models.size(); ++m)
    per_model.push_back({{"model", models[m]}, {"sent", sent_by_model[m]}, {"on_time", on_time_by_model[m]}});
  auto ms = [](Duration d) { return d.to_ms(); };
  return {{"sent", sent},
          {"on_time", on_time},
          {"late", late},
          {"dropped", dropped},
          {"dropped_by_reason", reasons},
          {"scheduler_lost", scheduler_lost},
          {"no_outcome", no_outcome},
          {"reconciled", reconciled()},
          {"lost", lost()},
          {"attainment", attainment()},
          {"goodput_rps", goodput_rps()},
          {"duration_s", duration_s},
          {"reconnects", reconnects},
          {"latency_ms", {{"p50", ms(latency.quantile(0.5))}, {"p99", ms(latency.quantile(0.99))}}},
          {"round_trip_ms", {{"p50", ms(round_trip.quantile(0.5))}, {"p99", ms(round_trip.quantile(0.99))}}},
          {"models", per_model}};
}

ArrivalProcess parse_arrival(const std::string& text, std::vector<Duration>& trace) {
  if (text == "poisson") return PoissonArrivals{};
  if (text.rfind("gamma:", 0) == 0) {
    char* end = nullptr;
    const double shape = std::strtod(text.c_str() + 6, &end);
    if (end == text.c_str() + 6 || *end != '\0' || !(shape > 0))
      throw QueryError("--arrival gamma:SHAPE needs a positive shape (got '" + text.substr(6) + "')");
    return GammaArrivals{shape};
  }
  if (text.rfind("trace:", 0) == 0) {
    trace = load_trace_file(text.substr(6));
    return TraceArrivals{text.substr(6)};
  }
  throw QueryError("--arrival must be poisson, gamma:SHAPE or trace:FILE (got '" + text + "')");
}

namespace {

// One run of the load generator against a scheduler: the connection (and its replacements), every
// request sent and its outcome, and the report they add up to.
class LoadSession {
 public:
  LoadSession(const LoadOptions& options, const std::atomic<bool>& stop,
              const std::function<void(const std::string&)>& log)
      : options_(options), stop_(stop), log_(log), where_(options.host + ":" + std::to_string(options.port)) {}

  LoadReport run() {
    if (!(options_.rate_rps > 0)) throw QueryError("the rate must be positive");
    auto [stream, joined] = first_connection();
    const auto welcome = parse_payload_or_nothing(joined.welcome).value_or(nlohmann::json());
    if (!welcome.is_object() || !welcome.contains("run"))
      throw LiveError("the server at " + where_ + " is not a ServeScope scheduler (its welcome has no run)");
    auto streams = streams_of(welcome);
    Duration largest_slo;
    for (const auto& st : streams)
      largest_slo = std::max(largest_slo, st.slo);
    WorkloadArrivals arrivals(std::move(streams), options_.duration, options_.seed);
    conn_ = std::make_unique<Connection>(std::move(stream), std::move(joined.decoder), std::move(joined.encoder));
    frames_ = std::move(joined.pending);
    ready_ = welcome.value("missing_servers", nlohmann::json::array()).empty();
    wait_until_ready();
    send(arrivals);
    drain(largest_slo);
    report_.no_outcome = outstanding_;
    sent_.for_each_awaited([&](std::uint64_t id, const Sent& s) { write_row(id, s, "no_outcome", "", std::nullopt); });
    return std::move(report_);
  }

 private:
  void say(const std::string& line) const {
    if (log_) log_(line);
  }

  std::pair<TcpStream, Joined> connect() const {
    auto stream = TcpStream::connect(options_.host, options_.port, std::chrono::milliseconds(2000), options_.tls);
    auto joined =
        join(stream, Hello{options_.token, PeerRole::LoadGenerator, options_.name}, std::chrono::milliseconds(2000));
    return {std::move(stream), std::move(joined)};
  }

  // The scheduler may still be starting, or strangers crowding it may have closed this connection
  // before its hello was read: try again until the ready timeout, unless it refused us.
  std::pair<TcpStream, Joined> first_connection() const {
    const auto give_up = Clock::now() + options_.ready_timeout;
    for (;;) {
      try {
        return connect();
      } catch (const RefusedError&) {
        throw;
      } catch (const LiveError&) {
        if (stop_.load() || Clock::now() > give_up) throw;
        std::this_thread::sleep_for(std::chrono::milliseconds(250));
      }
    }
  }

  // The models the welcome names, their SLOs and rate shares (or the options' models, evenly),
  // as arrival streams at the options' rate. The welcome is read like any other text from
  // elsewhere: a scheduler that sends something else is named, never trusted with an index.
  std::vector<ArrivalStream> streams_of(const nlohmann::json& welcome) {
    std::vector<Duration> slo;
    std::vector<double> shares;
    const std::string welcome_name = "the welcome from " + where_;
    try {
      const JsonCursor root(welcome, welcome_name);
      const auto models = root.at("run").at("models");
      for (std::size_t i = 0; i < models.size(); ++i) {
        const auto m = models[i];
        report_.models.push_back(m.string_or("name", ""));
        const auto slo_us = m.find("slo_us");
        slo.push_back(slo_us ? slo_us->as_duration_us() : Duration());
      }
      shares.assign(report_.models.size(), 0.0);
      if (const auto given = root.find("rate_shares")) {
        if (given->size() != shares.size())
          given->fail("holds " + std::to_string(given->size()) + " shares for " + std::to_string(shares.size()) +
                      " models");
        for (std::size_t i = 0; i < shares.size(); ++i)
          shares[i] = (*given)[i].as_double(0, 1);
      }
    } catch (const InputError& e) {
      throw LiveError(std::string("the server at ") + where_ +
                      " sent a welcome this load generator cannot use: " + e.what());
    }
    report_.sent_by_model.assign(report_.models.size(), 0);
    report_.on_time_by_model.assign(report_.models.size(), 0);
    if (!options_.models.empty()) {
      std::ranges::fill(shares, 0.0);
      for (const auto& name : options_.models) {
        const auto it = std::ranges::find(report_.models, name);
        if (it == report_.models.end()) throw QueryError("the scheduler does not serve a model named '" + name + "'");
        shares[static_cast<std::size_t>(it - report_.models.begin())] =
            1.0 / static_cast<double>(options_.models.size());
      }
    }
    std::vector<ArrivalStream> streams;
    for (std::uint32_t m = 0; m < shares.size(); ++m)
      if (shares[m] > 0)
        streams.push_back(ArrivalStream{m, 0, slo[m], options_.rate_rps * shares[m], options_.arrival, options_.trace});
    if (streams.empty()) throw LiveError("the scheduler's workload sends no model requests");
    return streams;
  }

  // One row per request sent, however it ended: the CSV reconciles with the report.
  void write_row(std::uint64_t id, const Sent& s, std::string_view outcome, std::string_view reason,
                 std::optional<std::int64_t> latency_ns) {
    if (!options_.per_request) return;
    auto& out = *options_.per_request;
    out << id << ',' << report_.models[s.model] << ',' << static_cast<double>(ns_between(sent_.first_at(), s.at)) / 1e3
        << ',' << outcome << ',' << reason << ',';
    if (latency_ns) out << static_cast<double>(*latency_ns) / 1e3;
    out << '\n';
  }

  void take_outcomes(const Frame& f) {
    const auto now = Clock::now();
    for (const auto& o : decode_outcomes(f.payload)) {
      auto* awaited = sent_.awaited(o.client_id);
      if (!awaited)
        throw ProtocolError("an outcome for request " + std::to_string(o.client_id) + ", which is not awaited");
      const auto s = *awaited;
      --outstanding_;
      switch (o.status) {
        case OutcomeStatus::OnTime:
          ++report_.on_time;
          ++report_.on_time_by_model[s.model];
          break;
        case OutcomeStatus::Late:
          ++report_.late;
          break;
        case OutcomeStatus::Dropped:
          ++report_.dropped;
          ++report_.dropped_by_reason[static_cast<std::size_t>(o.reason)];
          break;
      }
      if (o.status != OutcomeStatus::Dropped) report_.latency.add(Duration::nanoseconds(o.latency_ns));
      report_.round_trip.add(Duration::nanoseconds(ns_between(s.at, now)));
      write_row(o.client_id, s,
                o.status == OutcomeStatus::OnTime ? "on_time"
                : o.status == OutcomeStatus::Late ? "late"
                                                  : "dropped",
                o.status == OutcomeStatus::Dropped ? to_string(o.reason) : "", o.latency_ns);
      sent_.answer(o.client_id);
    }
  }

  void handle(std::vector<Frame>& fs) {
    for (const auto& f : fs) {
      if (f.type == FrameType::Outcome) {
        take_outcomes(f);
      } else if (f.type == FrameType::Control) {
        const auto j = parse_payload_or_nothing(f.payload).value_or(nlohmann::json());
        if (j.is_object() && j.value("type", "") == "status")
          ready_ = j.value("missing_servers", nlohmann::json::array()).empty();
      } else if (f.type == FrameType::Refused) {
        throw LiveError("the scheduler said: " + std::string(f.payload.begin(), f.payload.end()));
      }
    }
    fs.clear();
  }

  // One poll of the connection for `wait`; false when it broke.
  bool pump(std::chrono::nanoseconds wait) {
    pollfd p{conn_->native_handle(), static_cast<short>(POLLIN | (conn_->wants_write() ? POLLOUT : 0)), 0};
    const timespec timeout{static_cast<time_t>(wait.count() / 1'000'000'000),
                           static_cast<long>(wait.count() % 1'000'000'000)};
    ::ppoll(&p, 1, &timeout, nullptr);
    const bool open = conn_->receive(frames_);
    handle(frames_);
    if (!open) return false;
    if (Clock::now() - conn_->last_sent() > std::chrono::milliseconds(250))
      conn_->send(FrameType::Heartbeat, std::string_view{});
    conn_->flush();
    return true;
  }

  // pump(), with a broken connection as false; a peer that breaks the protocol still throws.
  bool pump_or_lost(std::chrono::nanoseconds wait) {
    try {
      return pump(wait);
    } catch (const LiveError& e) {
      if (dynamic_cast<const ProtocolError*>(&e)) throw;
      return false;
    }
  }

  std::string why_closed() const { return conn_->error().empty() ? "closed" : conn_->error(); }

  // A broken connection ends the outstanding requests as lost with the scheduler.
  void lose_outstanding(const std::string& why) {
    say("scheduler connection lost (" + why + "); " + std::to_string(outstanding_) + " requests lost with it");
    std::vector<std::uint64_t> lost;
    sent_.for_each_awaited([&](std::uint64_t id, const Sent& s) {
      ++report_.scheduler_lost;
      write_row(id, s, "scheduler_lost", "", std::nullopt);
      lost.push_back(id);
    });
    for (const auto id : lost)
      sent_.answer(id);
    outstanding_ = 0;
  }

  // Then, while there is sending left to do, a new connection.
  bool reconnect(const std::string& why) {
    lose_outstanding(why);
    for (;;) {
      if (stop_.load()) return false;
      try {
        auto [stream, joined] = connect();
        conn_ = std::make_unique<Connection>(std::move(stream), std::move(joined.decoder), std::move(joined.encoder));
        frames_ = std::move(joined.pending);
        ++report_.reconnects;
        say("reconnected to the scheduler");
        return true;
      } catch (const RefusedError&) {
        throw;
      } catch (const LiveError&) {
        std::this_thread::sleep_for(std::chrono::milliseconds(250));
      }
    }
  }

  void wait_until_ready() {
    const auto ready_until = Clock::now() + options_.ready_timeout;
    handle(frames_);
    while (!ready_) {
      if (stop_.load()) throw LiveError("stopped while waiting for the deployment to become ready");
      if (Clock::now() > ready_until)
        throw LiveError("the deployment did not become ready within " + std::to_string(options_.ready_timeout.count()) +
                        " ms: workers missing (start `servescope-cli live worker` for each server of the plan)");
      if (!pump(std::chrono::milliseconds(50))) throw LiveError("the scheduler closed the connection while waiting");
    }
  }

  // Requests go out when due; ones due within the coalescing window go in the same frame.
  void send(WorkloadArrivals& arrivals) {
    std::ostringstream line;
    line << "sending " << options_.rate_rps << " requests/s for " << options_.duration.to_s() << " s ("
         << describe(options_.arrival) << ")";
    say(line.str());
    const auto start = Clock::now();
    std::vector<ClientRequest> batch;
    auto next = arrivals.next();
    while (next && !stop_.load(std::memory_order_relaxed)) {
      const auto now = Clock::now();
      const Duration elapsed = Duration::nanoseconds(ns_between(start, now));
      batch.clear();
      while (next && next->at <= elapsed + options_.coalesce) {
        if (next->at > elapsed && !batch.empty()) break;
        if (next->at > elapsed) break;
        batch.push_back(ClientRequest{sent_.push(next->model, now), next->model, next->target});
        ++report_.sent_by_model[next->model];
        ++outstanding_;
        next = arrivals.next();
      }
      if (!batch.empty()) conn_->send(FrameType::Request, encode_requests(batch));
      const auto wait = next ? std::max(next->at - elapsed, options_.coalesce) : Duration();
      const bool open = pump_or_lost(std::chrono::nanoseconds(batch.empty() ? wait.count_ns() : 0));
      if (!open && !reconnect(why_closed())) break;
    }
    report_.sent = sent_.count();
    report_.duration_s = std::chrono::duration<double>(Clock::now() - start).count();
  }

  // Waits for the outstanding outcomes: the drain timeout, or four times the largest SLO and 2 s.
  void drain(Duration largest_slo) {
    const auto drain = options_.drain_timeout.count() > 0
                           ? std::chrono::nanoseconds(options_.drain_timeout)
                           : std::chrono::nanoseconds(largest_slo.count_ns() * 4) + std::chrono::seconds(2);
    const auto drain_until = Clock::now() + drain;
    while (outstanding_ > 0 && Clock::now() < drain_until && !stop_.load()) {
      if (!pump_or_lost(std::chrono::milliseconds(20))) {
        lose_outstanding(why_closed());  // nothing left to send
        break;
      }
    }
  }

  const LoadOptions& options_;
  const std::atomic<bool>& stop_;
  const std::function<void(const std::string&)>& log_;
  const std::string where_;
  LoadReport report_;
  std::unique_ptr<Connection> conn_;
  std::vector<Frame> frames_;
  SentWindow sent_;
  std::size_t outstanding_ = 0;
  bool ready_ = false;
};

}  // namespace

LoadReport run_load(const LoadOptions& options, const std::atomic<bool>& stop,
                    const std::function<void(const std::string&)>& log) {
  return LoadSession(options, stop, log).run();
}

}  // namespace servescope::engine::live
