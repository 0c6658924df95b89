#include "engine/live/live_scheduler.h"

#include <poll.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <unordered_set>

#include "engine/live/byte_codec.h"
#include "engine/live/json_payload.h"
#include "engine/live/live_run.h"
#include "engine/live/messages.h"
#include "engine/live/scheduler_parts.h"
#include "engine/ppipe/pipeline_deployment.h"
#include "engine/systems/system_registry.h"
#include "model/core/error.h"

namespace servescope::engine::live {
namespace {

constexpr std::chrono::milliseconds kStatusEvery{500};

}  // namespace

void check_servable_live(const PreparedServing& p) {
  const auto& system = p.result.system;
  if (!p.setup.apps.empty())
    throw QueryError("application requests are not served live yet; give a workload of models");
  if (const auto& why = data_plane_traits(system).not_live; !why.empty()) throw QueryError(why);
  if (!p.times) throw QueryError("the " + system + " data plane has no batch timings");
  // A drawn network layout models a simulator (the PPipe artifact's), not the cluster the
  // workers run on: reservations on links that do not exist would book what nobody carries.
  if (p.network)
    throw QueryError(
        "--network artifact lays links out as the PPipe artifact's simulator does; a live deployment "
        "runs on its servers' own NICs (per-server)");
}

LiveScheduler::LiveScheduler(PreparedServing prepared, SchedulerOptions options, std::string scenario_name)
    : prepared_(std::move(prepared)),
      options_(std::move(options)),
      scenario_name_(std::move(scenario_name)),
      context_{*this, *this, *this},
      origin_(std::chrono::steady_clock::now()),
      roster_(prepared_.result.server_names),
      event_began_(origin_),
      recording_(options_.keep_events),
      peers_(*this, options_, counters_),
      last_status_(origin_) {
  check_servable_live(prepared_);
  // Batches drawn from measured distributions, as the simulator draws them: an emulated worker
  // holds a batch for the run time it is sent; a real one reports its own.
  if (prepared_.result.sampled_runtime)
    runtime_draws_.emplace(runtime_sampling_seed(prepared_.result.seed), prepared_.spells);
  const auto& result = prepared_.result;
  const auto models = result.models.size();
  counters_.arrivals.assign(models, 0);
  counters_.on_time.assign(models, 0);
  counters_.late.assign(models, 0);
  counters_.dropped.assign(models, {});
  adopt_plane();
  if (options_.metrics_port) {
    metrics_ = std::make_unique<MetricsServer>(*options_.metrics_port, options_.metrics_host);
    metrics_->publish(prometheus_text());
  }
}

// The current plane's slots: which server holds each, which servers the plan uses, their counters.
void LiveScheduler::adopt_plane() {
  const auto& result = prepared_.result;
  roster_.set_plan(result.gpu_server);
  links_ = network_of(prepared_.setup);
  counters_.batches.assign(result.gpus.size(), 0);
  counters_.busy_ns.assign(result.gpus.size(), 0);
  prepared_.plane->start(context_);
  // Slots whose worker has not joined are gone until it does; a doubted worker's until it reports.
  for (std::uint32_t g = 0; g < roster_.slots(); ++g)
    if (!roster_.slot_usable(g)) prepared_.plane->set_gpu_available(g, false);
}

void LiveScheduler::set_server_available(std::uint32_t server, bool available) {
  for (const auto g : roster_.slots_of(server))
    prepared_.plane->set_gpu_available(g, available);
}

std::vector<SimulationResult> LiveScheduler::recorded_before_switches() const {
  return recording_.earlier_plans(now());
}

LiveScheduler::~LiveScheduler() = default;

std::optional<std::uint16_t> LiveScheduler::metrics_port() const {
  if (!metrics_) return std::nullopt;
  return metrics_->port();
}

void LiveScheduler::log(const std::string& line) const {
  if (log_) log_(line);
}

void LiveScheduler::notice(NoticeKind kind, std::optional<std::uint32_t> server, const std::string& line) {
  log(line);
  recording_.events().on_notice({now(), kind, line, server ? roster_.slots_of(*server) : std::vector<std::uint32_t>{}});
}

Time LiveScheduler::now() const {
  return Duration::nanoseconds(
      std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now() - origin_).count());
}

TimerId LiveScheduler::create_timer(std::uint64_t token) {
  return timers_.create(token);
}

void LiveScheduler::arm(TimerId timer, Time at) {
  timers_.arm(timer, at);
}

void LiveScheduler::disarm(TimerId timer) {
  timers_.disarm(timer);
}

void LiveScheduler::fire_due_timers() {
  while (const auto due = timers_.take_due(now())) {
    // The overhead of what this firing dispatches counts from when it was due, so the loop's own
    // lateness is in it.
    event_began_ = origin_ + std::chrono::nanoseconds(due->at.count_ns());
    if (const auto* token = std::get_if<std::uint64_t>(&due->what))
      prepared_.plane->on_timer(*token);
    else if (const auto* batch = std::get_if<BatchDone>(&due->what))
      prepared_.plane->on_batch_done(*batch);
    else
      prepared_.plane->on_transfer_done(std::get<TransferDone>(due->what));
  }
}

void LiveScheduler::publish() {
  for (const auto& p : peers_.peers())
    if (!p->closed && !p->outcomes.empty()) {
      p->conn->send(FrameType::Outcome, encode_outcomes(p->outcomes));
      p->outcomes.clear();
    }
  if (recording_.unpublished_bytes() > 0) {
    counters_.events = recording_.records();
    counters_.event_bytes += recording_.unpublished_bytes();
    const auto bytes = recording_.take(now());
    if (!counters_.recording_failed && !recording_.failure().empty()) {
      counters_.recording_failed = true;
      log("the recording stops keeping events, serving goes on: " + recording_.failure());
    }
    for (const auto& p : peers_.peers()) {
      if (p->closed || !p->welcomed || p->hello.role != PeerRole::Gui) continue;
      if (p->conn->buffered() > options_.subscriber_limit_bytes) {
        // Never wait for a subscriber: the data plane's pace is the run's, not the viewer's.
        ++counters_.subscribers_dropped;
        peers_.close(*p,
                     "too slow: " + std::to_string(p->conn->buffered() >> 20) +
                         " MiB of events not yet read; reconnect to follow again",
                     true);
        continue;
      }
      p->conn->send(FrameType::Events, bytes);
    }
  }
  if (std::chrono::steady_clock::now() - last_status_ > kStatusEvery) broadcast_status();
  peers_.flush();
}

void LiveScheduler::run(const std::atomic<bool>& stop) {
  use_fine_timer_slack();
  std::vector<pollfd> fds;
  auto last_liveness = std::chrono::steady_clock::now();
  while (!stop.load(std::memory_order_relaxed)) {
    fds.clear();
    peers_.add_poll_fds(fds, std::chrono::steady_clock::now());
    // Sleep until the next timer is due, and at most 50 ms (stop flag, liveness).
    Time next = now() + Duration::milliseconds(50);
    if (const auto due = timers_.next_due()) next = std::min(next, *due);
    const auto wait_ns = std::max<std::int64_t>(0, (next - now()).count_ns());
    const timespec timeout{static_cast<time_t>(wait_ns / 1'000'000'000), static_cast<long>(wait_ns % 1'000'000'000)};
    const int ready = ::ppoll(fds.data(), fds.size(), &timeout, nullptr);
    if (ready < 0 && errno != EINTR) throw LiveError(std::string("poll: ") + std::strerror(errno));
    fire_due_timers();
    if (ready > 0) peers_.serve(fds);
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
    peers_.erase_closed();
  }
  peers_.shut_down("the scheduler is shutting down");
}

SimulationResult LiveScheduler::recorded() const {
  return recording_.recorded(prepared_.result, now());
}

std::string LiveScheduler::prometheus_text() const {
  SchedulerGauges gauges;
  gauges.outstanding = ledger_.size();
  gauges.workers = workers_connected();
  gauges.subscribers = peers_.subscribers();
  return live::prometheus_text(counters_, prepared_.result, gauges);
}

}  // namespace servescope::engine::live
