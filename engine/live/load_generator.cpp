#include "engine/live/load_generator.h"

#include <poll.h>

#include <algorithm>
#include <cstring>
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

LoadReport run_load(const LoadOptions& options, const std::atomic<bool>& stop,
                    const std::function<void(const std::string&)>& log) {
  if (!(options.rate_rps > 0)) throw QueryError("the rate must be positive");
  auto say = [&](const std::string& line) {
    if (log) log(line);
  };
  const auto where = options.host + ":" + std::to_string(options.port);
  auto connect = [&]() {
    auto stream = TcpStream::connect(options.host, options.port, std::chrono::milliseconds(2000));
    auto joined =
        join(stream, Hello{options.token, PeerRole::LoadGenerator, options.name}, std::chrono::milliseconds(2000));
    return std::make_pair(std::move(stream), std::move(joined));
  };
  // The scheduler may still be starting, or strangers crowding it may have closed this connection
  // before its hello was read: try again until the ready timeout, unless it refused us.
  const auto give_up = Clock::now() + options.ready_timeout;
  auto first = [&] {
    for (;;) {
      try {
        return connect();
      } catch (const RefusedError&) {
        throw;
      } catch (const LiveError&) {
        if (stop.load() || Clock::now() > give_up) throw;
        std::this_thread::sleep_for(std::chrono::milliseconds(250));
      }
    }
  }();
  auto& [first_stream, first_join] = first;
  const auto welcome = parse_payload_or_nothing(first_join.welcome).value_or(nlohmann::json());
  if (!welcome.is_object() || !welcome.contains("run"))
    throw LiveError("the server at " + where + " is not a ServeScope scheduler (its welcome has no run)");
  LoadReport report;
  std::vector<Duration> slo;
  std::vector<double> shares;
  // The welcome is read like any other text from elsewhere: a scheduler that sends something
  // else is named, never trusted with an index.
  const std::string welcome_name = "the welcome from " + where;
  try {
    const JsonCursor root(welcome, welcome_name);
    const auto models = root.at("run").at("models");
    for (std::size_t i = 0; i < models.size(); ++i) {
      const auto m = models[i];
      report.models.push_back(m.string_or("name", ""));
      const auto slo_us = m.find("slo_us");
      slo.push_back(slo_us ? slo_us->as_duration_us() : Duration());
    }
    shares.assign(report.models.size(), 0.0);
    if (const auto given = root.find("rate_shares")) {
      if (given->size() != shares.size())
        given->fail("holds " + std::to_string(given->size()) + " shares for " + std::to_string(shares.size()) +
                    " models");
      for (std::size_t i = 0; i < shares.size(); ++i)
        shares[i] = (*given)[i].as_double(0, 1);
    }
  } catch (const InputError& e) {
    throw LiveError(std::string("the server at ") + where +
                    " sent a welcome this load generator cannot use: " + e.what());
  }
  report.sent_by_model.assign(report.models.size(), 0);
  report.on_time_by_model.assign(report.models.size(), 0);
  // Which models, at what shares.
  if (!options.models.empty()) {
    std::ranges::fill(shares, 0.0);
    for (const auto& name : options.models) {
      const auto it = std::ranges::find(report.models, name);
      if (it == report.models.end()) throw QueryError("the scheduler does not serve a model named '" + name + "'");
      shares[static_cast<std::size_t>(it - report.models.begin())] = 1.0 / static_cast<double>(options.models.size());
    }
  }
  std::vector<ArrivalStream> streams;
  Duration largest_slo;
  for (std::uint32_t m = 0; m < shares.size(); ++m)
    if (shares[m] > 0) {
      streams.push_back(ArrivalStream{m, 0, slo[m], options.rate_rps * shares[m], options.arrival, options.trace});
      largest_slo = std::max(largest_slo, slo[m]);
    }
  if (streams.empty()) throw LiveError("the scheduler's workload sends no model requests");
  WorkloadArrivals arrivals(std::move(streams), options.duration, options.seed);

  auto conn = std::make_unique<Connection>(std::move(first_stream), std::move(first_join.decoder),
                                           std::move(first_join.encoder));
  std::vector<Frame> frames = std::move(first_join.pending);
  std::vector<Sent> sent;
  std::size_t outstanding = 0;
  // One row per request sent, however it ended: the CSV reconciles with the report.
  auto write_row = [&](std::uint64_t id, std::string_view outcome, std::string_view reason,
                       std::optional<std::int64_t> latency_ns) {
    if (!options.per_request) return;
    const auto& s = sent[id];
    auto& out = *options.per_request;
    out << id << ',' << report.models[s.model] << ',' << static_cast<double>(ns_between(sent.front().at, s.at)) / 1e3
        << ',' << outcome << ',' << reason << ',';
    if (latency_ns) out << static_cast<double>(*latency_ns) / 1e3;
    out << '\n';
  };
  auto take_outcomes = [&](const Frame& f) {
    const auto now = Clock::now();
    for (const auto& o : decode_outcomes(f.payload)) {
      if (o.client_id >= sent.size() || sent[o.client_id].answered)
        throw ProtocolError("an outcome for request " + std::to_string(o.client_id) + ", which is not awaited");
      auto& s = sent[o.client_id];
      s.answered = true;
      --outstanding;
      switch (o.status) {
        case OutcomeStatus::OnTime:
          ++report.on_time;
          ++report.on_time_by_model[s.model];
          break;
        case OutcomeStatus::Late:
          ++report.late;
          break;
        case OutcomeStatus::Dropped:
          ++report.dropped;
          ++report.dropped_by_reason[static_cast<std::size_t>(o.reason)];
          break;
      }
      if (o.status != OutcomeStatus::Dropped) report.latency.add(Duration::nanoseconds(o.latency_ns));
      report.round_trip.add(Duration::nanoseconds(ns_between(s.at, now)));
      write_row(o.client_id,
                o.status == OutcomeStatus::OnTime ? "on_time"
                : o.status == OutcomeStatus::Late ? "late"
                                                  : "dropped",
                o.status == OutcomeStatus::Dropped ? to_string(o.reason) : "", o.latency_ns);
    }
  };
  bool ready = welcome.value("missing_servers", nlohmann::json::array()).empty();
  auto handle = [&](std::vector<Frame>& fs) {
    for (const auto& f : fs) {
      if (f.type == FrameType::Outcome) {
        take_outcomes(f);
      } else if (f.type == FrameType::Control) {
        const auto j = parse_payload_or_nothing(f.payload).value_or(nlohmann::json());
        if (j.is_object() && j.value("type", "") == "status")
          ready = j.value("missing_servers", nlohmann::json::array()).empty();
      } else if (f.type == FrameType::Refused) {
        throw LiveError("the scheduler said: " + std::string(f.payload.begin(), f.payload.end()));
      }
    }
    fs.clear();
  };
  // One poll of the connection for `wait`; false when it broke.
  auto pump = [&](std::chrono::nanoseconds wait) {
    pollfd p{conn->native_handle(), static_cast<short>(POLLIN | (conn->wants_write() ? POLLOUT : 0)), 0};
    const timespec timeout{static_cast<time_t>(wait.count() / 1'000'000'000),
                           static_cast<long>(wait.count() % 1'000'000'000)};
    ::ppoll(&p, 1, &timeout, nullptr);
    const bool open = conn->receive(frames);
    handle(frames);
    if (!open) return false;
    if (Clock::now() - conn->last_sent() > std::chrono::milliseconds(250))
      conn->send(FrameType::Heartbeat, std::string_view{});
    conn->flush();
    return true;
  };
  // A broken connection ends the outstanding requests as lost with the scheduler.
  auto lose_outstanding = [&](const std::string& why) {
    say("scheduler connection lost (" + why + "); " + std::to_string(outstanding) + " requests lost with it");
    for (std::uint64_t id = 0; id < sent.size(); ++id)
      if (!sent[id].answered) {
        sent[id].answered = true;
        ++report.scheduler_lost;
        write_row(id, "scheduler_lost", "", std::nullopt);
      }
    outstanding = 0;
  };
  // Then, while there is sending left to do, a new connection.
  auto reconnect = [&](const std::string& why) {
    lose_outstanding(why);
    for (;;) {
      if (stop.load()) return false;
      try {
        auto [stream, joined] = connect();
        conn = std::make_unique<Connection>(std::move(stream), std::move(joined.decoder), std::move(joined.encoder));
        frames = std::move(joined.pending);
        ++report.reconnects;
        say("reconnected to the scheduler");
        return true;
      } catch (const RefusedError&) {
        throw;
      } catch (const LiveError&) {
        std::this_thread::sleep_for(std::chrono::milliseconds(250));
      }
    }
  };

  const auto ready_until = Clock::now() + options.ready_timeout;
  handle(frames);
  while (!ready) {
    if (stop.load()) throw LiveError("stopped while waiting for the deployment to become ready");
    if (Clock::now() > ready_until)
      throw LiveError("the deployment did not become ready within " + std::to_string(options.ready_timeout.count()) +
                      " ms: workers missing (start `servescope-cli live worker` for each server of the plan)");
    if (!pump(std::chrono::milliseconds(50))) throw LiveError("the scheduler closed the connection while waiting");
  }
  {
    std::ostringstream line;
    line << "sending " << options.rate_rps << " requests/s for " << options.duration.to_s() << " s ("
         << describe(options.arrival) << ")";
    say(line.str());
  }
  const auto start = Clock::now();
  std::vector<ClientRequest> batch;
  auto next = arrivals.next();
  while (next && !stop.load(std::memory_order_relaxed)) {
    const auto now = Clock::now();
    const Duration elapsed = Duration::nanoseconds(ns_between(start, now));
    batch.clear();
    while (next && next->at <= elapsed + options.coalesce) {
      // A request goes out once it is due; ones due within the coalescing window go with it.
      if (next->at > elapsed && !batch.empty()) break;
      if (next->at > elapsed) break;
      batch.push_back(ClientRequest{sent.size(), next->model, next->target});
      sent.push_back(Sent{next->model, false, now});
      ++report.sent_by_model[next->model];
      ++outstanding;
      next = arrivals.next();
    }
    if (!batch.empty()) conn->send(FrameType::Request, encode_requests(batch));
    const auto wait = next ? std::max(next->at - elapsed, options.coalesce) : Duration();
    bool open = true;
    try {
      open = pump(std::chrono::nanoseconds(batch.empty() ? wait.count_ns() : 0));
    } catch (const LiveError& e) {
      if (dynamic_cast<const ProtocolError*>(&e)) throw;
      open = false;
    }
    if (!open && !reconnect(conn->error().empty() ? "closed" : conn->error())) break;
  }
  report.sent = sent.size();
  report.duration_s = std::chrono::duration<double>(Clock::now() - start).count();
  const auto drain = options.drain_timeout.count() > 0
                         ? std::chrono::nanoseconds(options.drain_timeout)
                         : std::chrono::nanoseconds(largest_slo.count_ns() * 4) + std::chrono::seconds(2);
  const auto drain_until = Clock::now() + drain;
  while (outstanding > 0 && Clock::now() < drain_until && !stop.load()) {
    bool open = true;
    try {
      open = pump(std::chrono::milliseconds(20));
    } catch (const LiveError& e) {
      if (dynamic_cast<const ProtocolError*>(&e)) throw;
      open = false;
    }
    if (!open) {
      lose_outstanding(conn->error().empty() ? "closed" : conn->error());  // nothing left to send
      break;
    }
  }
  report.no_outcome = outstanding;
  for (std::uint64_t id = 0; id < sent.size(); ++id)
    if (!sent[id].answered) write_row(id, "no_outcome", "", std::nullopt);
  return report;
}

}  // namespace servescope::engine::live
