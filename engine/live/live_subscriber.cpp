#include "engine/live/live_subscriber.h"

#include <poll.h>

#include <algorithm>
#include <cstring>
#include <deque>
#include <nlohmann/json.hpp>
#include <thread>

#include "engine/live/byte_codec.h"
#include "engine/live/connection.h"
#include "engine/live/handshake.h"
#include "engine/live/json_payload.h"
#include "model/io/json_cursor.h"

namespace servescope::engine::live {
namespace {

using Clock = std::chrono::steady_clock;

Duration since(Clock::time_point origin, Clock::time_point t) {
  return Duration::nanoseconds(std::chrono::duration_cast<std::chrono::nanoseconds>(t - origin).count());
}

}  // namespace

LiveSubscriber::LiveSubscriber(SubscriberOptions options) : options_(std::move(options)) {}

LiveSubscriber::~LiveSubscriber() = default;

LiveStatus LiveSubscriber::status() const {
  std::lock_guard lock(mutex_);
  auto s = status_;
  s.run_origin = run_origin_;
  if (s.connected) {
    s.scheduler_now = since(origin_estimate_, Clock::now()) - run_origin_;
  }
  return s;
}

void LiveSubscriber::send_command(const nlohmann::json& command) {
  std::lock_guard lock(mutex_);
  outbox_.push_back(command.dump());
}

std::optional<SimulationResult> LiveSubscriber::aggregates() const {
  std::lock_guard lock(mutex_);
  if (!run_) return std::nullopt;
  return run_->aggregates();
}

std::optional<LiveSubscriber::TimelineTake> LiveSubscriber::take_timeline(std::uint64_t last_run) {
  std::lock_guard lock(mutex_);
  if (!run_) return std::nullopt;
  TimelineTake take;
  take.run = status_.run;
  if (take.run != last_run) take.layout = timeline_of(run_->aggregates());
  take.chunk = run_->take_timeline();
  take.run_origin = run_origin_;
  return take;
}

std::optional<LiveSubscriber::Curves> LiveSubscriber::curves(std::size_t max_points) const {
  std::lock_guard lock(mutex_);
  if (!run_) return std::nullopt;
  const auto& m = run_->metrics();
  const auto bins = m.arrivals_per_bin().size();
  const auto k = std::max<std::size_t>(1, (bins + max_points - 1) / std::max<std::size_t>(max_points, 1));
  Curves out;
  attainment_and_goodput(coarser_bins(m.arrivals_per_bin(), k), coarser_bins(m.on_time_per_bin(), k),
                         m.bin().to_s() * static_cast<double>(k), out.attainment_pct, out.goodput_rps);
  out.run_origin = run_origin_;
  return out;
}

void LiveSubscriber::serve(Connection& conn, const std::string& welcome_text, std::vector<Frame> frames,
                           const std::atomic<bool>& stop) {
  const auto welcome = parse_payload_or_nothing(welcome_text).value_or(nlohmann::json());
  if (!welcome.is_object() || !welcome.contains("run"))
    throw LiveError("the server is not a ServeScope scheduler (its welcome has no run)");
  {
    auto description = run_from_description(welcome["run"], "the scheduler's welcome");
    // The timeline starts when we joined: a deployment may have run for days before.
    const std::string welcome_name = "the scheduler's welcome";
    const auto origin = Duration::nanoseconds(
        std::max<std::int64_t>(0, JsonCursor(welcome, welcome_name).int_or("now_ns", 0, INT64_MIN, INT64_MAX)));
    const auto warmup = std::max(Duration(), description.warmup - origin);
    std::lock_guard lock(mutex_);
    run_origin_ = origin;
    run_ = std::make_unique<LiveRun>(std::move(description), warmup, Duration::seconds(1), origin);
    status_.connected = true;
    status_.message = "connected";
    status_.scenario = welcome.value("scenario", "");
    status_.tls = conn.secure();
    // Plain TCP beyond loopback, by the scheduler's word (its --insecure) or by what we see.
    const auto flag = welcome.find("insecure");
    status_.insecure = !conn.secure() && ((flag != welcome.end() && flag->is_boolean() && flag->get<bool>()) ||
                                          !is_loopback(options_.host));
    ++status_.run;
    status_.events = 0;
    status_.workers_expected = 0;
    // The scheduler's clock read `now_ns` when it sent the welcome; a loopback hop is microseconds.
    origin_estimate_ = Clock::now() - std::chrono::nanoseconds(welcome.value("now_ns", std::int64_t{0}));
  }
  ++generation_;
  std::deque<std::pair<Clock::time_point, std::uint64_t>> rate_window;  // (when, events so far)
  auto forgot = Clock::now();
  bool open = true;  // the frames that came with the welcome first
  while (!stop.load(std::memory_order_relaxed)) {
    for (const auto& f : frames) {
      switch (f.type) {
        case FrameType::Events: {
          std::lock_guard lock(mutex_);
          const Time scheduler_now = since(origin_estimate_, Clock::now());
          run_->set_horizon(scheduler_now);
          run_->apply(f.payload);
          // How old the newest event was when it reached us: the stream's lag (kept while idle).
          status_.lag = std::max(Duration(), scheduler_now - run_origin_ - run_->latest());
          status_.events = run_->events();
          ++generation_;
          break;
        }
        case FrameType::Control: {
          const auto j = parse_payload_or_nothing(f.payload).value_or(nlohmann::json());
          if (!j.is_object()) break;
          if (j.value("type", "") == "plan-changed") {
            // A new plan is a new run: new slots, the clock carries on.
            auto description = run_from_description(j.value("run", nlohmann::json::object()), "a plan change");
            const auto origin = Duration::nanoseconds(std::max<std::int64_t>(0, j.value("now_ns", std::int64_t{0})));
            std::lock_guard lock(mutex_);
            run_origin_ = origin;
            run_ = std::make_unique<LiveRun>(std::move(description), Duration(), Duration::seconds(1), origin);
            ++status_.run;
            status_.events = 0;
            status_.message = "the plan changed: " + run_->description().system;
            ++generation_;
            break;
          }
          if (j.value("type", "") == "plan-reply") {
            std::lock_guard lock(mutex_);
            status_.message = j.value("message", "");
            status_.last_reply = status_.message;
            break;
          }
          if (j.value("type", "") != "status") break;
          std::lock_guard lock(mutex_);
          status_.switching = j.value("switching", false);
          status_.missing_servers = j.value("missing_servers", std::vector<std::string>{});
          status_.outstanding = j.value("outstanding", std::uint64_t{0});
          status_.workers_connected = 0;
          status_.workers_expected = 0;
          for (const auto& w : j.value("workers", nlohmann::json::array())) {
            if (w.value("used", false)) ++status_.workers_expected;
            if (w.value("connected", false) && w.value("used", false)) ++status_.workers_connected;
          }
          // Keep the earliest estimate of the scheduler's origin: the least delayed status.
          const auto origin = Clock::now() - std::chrono::nanoseconds(j.value("now_ns", std::int64_t{0}));
          origin_estimate_ = std::min(origin_estimate_, origin);
          break;
        }
        case FrameType::Heartbeat:
          break;
        case FrameType::Refused:
          throw LiveError("the scheduler said: " + std::string(f.payload.begin(), f.payload.end()));
        default:
          throw ProtocolError("the scheduler sent a " + std::string(to_string(f.type)) + " frame to a subscriber");
      }
    }
    if (!open) throw LiveError(conn.error().empty() ? "the scheduler closed the connection" : conn.error());
    frames.clear();
    pollfd p{conn.native_handle(), static_cast<short>(POLLIN | (conn.wants_write() ? POLLOUT : 0)), 0};
    ::poll(&p, 1, 100);
    open = conn.receive(frames);
    const auto now = Clock::now();
    {
      std::lock_guard lock(mutex_);
      rate_window.emplace_back(now, status_.events);
      while (rate_window.size() > 2 && now - rate_window.front().first > std::chrono::seconds(1))
        rate_window.pop_front();
      const double span = std::chrono::duration<double>(now - rate_window.front().first).count();
      status_.events_per_s = span > 0 ? static_cast<double>(status_.events - rate_window.front().second) / span : 0.0;
      // A pass over what nobody took, once a second: cheap while a viewer takes it.
      if (now - forgot > std::chrono::seconds(1)) {
        forgot = now;
        run_->forget_timeline_before(run_->latest() - options_.keep_untaken);
      }
    }
    {
      std::lock_guard lock(mutex_);
      for (const auto& command : outbox_)
        conn.send(FrameType::Control, command);
      outbox_.clear();
    }
    if (now - conn.last_sent() > std::chrono::milliseconds(250)) conn.send(FrameType::Heartbeat, std::string_view{});
    conn.flush();
  }
}

void LiveSubscriber::run(const std::atomic<bool>& stop) {
  use_fine_timer_slack();
  while (!stop.load()) {
    try {
      // Short waits: a viewer that disconnects waits for this thread.
      auto stream = TcpStream::connect(options_.host, options_.port, std::chrono::milliseconds(1000), options_.tls);
      auto joined = join(stream, Hello{options_.token, PeerRole::Gui, options_.name}, std::chrono::milliseconds(1000));
      Connection conn(std::move(stream), std::move(joined.decoder), std::move(joined.encoder));
      serve(conn, joined.welcome, std::move(joined.pending), stop);
    } catch (const RefusedError& e) {
      std::lock_guard lock(mutex_);
      status_.connected = false;
      status_.message = e.what();
      throw;
    } catch (const std::exception& e) {
      std::lock_guard lock(mutex_);
      status_.connected = false;
      status_.message = std::string("not connected: ") + e.what();
    }
    for (auto waited = std::chrono::milliseconds(0); waited < options_.reconnect_every && !stop.load();
         waited += std::chrono::milliseconds(50))
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  std::lock_guard lock(mutex_);
  status_.connected = false;
  status_.message = "disconnected";
}

}  // namespace servescope::engine::live
