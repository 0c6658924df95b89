#include "engine/live/live_run.h"

#include <algorithm>
#include <climits>

#include "engine/live/byte_codec.h"
#include "engine/live/event_stream.h"
#include "model/core/error.h"
#include "model/io/json_cursor.h"

namespace servescope::engine::live {

nlohmann::json describe_run(const SimulationResult& r) {
  nlohmann::json models = nlohmann::json::array();
  for (std::size_t m = 0; m < r.models.size(); ++m)
    models.push_back({{"name", r.models[m]}, {"slo_us", r.model_slo[m].to_us()}});
  nlohmann::json gpus = nlohmann::json::array();
  for (std::size_t g = 0; g < r.gpus.size(); ++g)
    gpus.push_back({{"name", r.gpus[g]},
                    {"type", r.gpu_types[g]},
                    {"share", r.gpu_shares[g]},
                    {"physical", r.gpu_physical[g]},
                    {"server", r.gpu_server[g]},
                    {"duty_cycle_us", r.gpu_duty_cycle[g].to_us()}});
  // What the scheduler planned and reserved at, and whether it drew emulated batches from measured
  // distributions, so that a recorded run says so as a simulated one does.
  return {{"system", r.system},
          {"plan_system", r.plan_system},
          {"models", models},
          {"gpus", gpus},
          {"servers", r.server_names},
          {"offered_rate_rps", r.offered_rate_rps},
          {"seed", r.seed},
          {"warmup_s", r.warmup.to_s()},
          {"nominal_capacity_rps", r.nominal_capacity_rps},
          {"latency_quantile", r.latency_quantile},
          {"sampled_runtime", r.sampled_runtime}};
}

SimulationResult run_from_description(const nlohmann::json& json, const std::string& source) {
  const JsonCursor run(json, source);
  run.expect_object({"system", "plan_system", "models", "gpus", "servers", "offered_rate_rps", "seed", "warmup_s",
                     "nominal_capacity_rps", "latency_quantile", "sampled_runtime"});
  SimulationResult r;
  r.system = run.at("system").as_string();
  r.plan_system = run.string_or("plan_system", "");
  const auto models = run.at("models");
  for (std::size_t m = 0; m < models.size(); ++m) {
    const auto model = models[m];
    model.expect_object({"name", "slo_us"});
    r.models.push_back(model.at("name").as_string());
    r.model_slo.push_back(model.at("slo_us").as_duration_us());
  }
  const auto servers = run.at("servers");
  for (std::size_t s = 0; s < servers.size(); ++s)
    r.server_names.push_back(servers[s].as_string());
  const auto gpus = run.at("gpus");
  for (std::size_t g = 0; g < gpus.size(); ++g) {
    const auto gpu = gpus[g];
    gpu.expect_object({"name", "type", "share", "physical", "server", "duty_cycle_us"});
    r.gpus.push_back(gpu.at("name").as_string());
    r.gpu_types.push_back(gpu.at("type").as_string(true));
    r.gpu_shares.push_back(gpu.at("share").as_string());
    r.gpu_physical.push_back(
        static_cast<std::uint32_t>(gpu.at("physical").as_int(0, static_cast<std::int64_t>(gpus.size()))));
    r.gpu_server.push_back(static_cast<std::uint32_t>(
        gpu.at("server").as_int(0, std::max<std::int64_t>(0, static_cast<std::int64_t>(r.server_names.size()) - 1))));
    r.gpu_duty_cycle.push_back(gpu.at("duty_cycle_us").as_duration_us());
  }
  r.offered_rate_rps = run.double_or("offered_rate_rps", 0, 0, 1e12);
  r.nominal_capacity_rps = run.double_or("nominal_capacity_rps", 0, 0, 1e12);
  r.seed = static_cast<std::uint64_t>(run.int_or("seed", 0, 0, INT64_MAX));
  r.warmup = Duration::from_s(run.double_or("warmup_s", 0, 0, 1e6));
  r.latency_quantile = run.double_or("latency_quantile", 0, 0, 1);
  r.sampled_runtime = run.bool_or("sampled_runtime", false);
  r.subclusters.push_back(SubclusterSummary{r.gpus.size(), r.models, r.offered_rate_rps});
  r.partition_status = "live";
  return r;
}

// Forwards to the run's recorders after checking each record against the run's tables and
// clock, with every instant moved to the run's origin.
class LiveRun::Checked final : public RunRecorder {
 public:
  explicit Checked(LiveRun& run) : run_(run) {}
  void on_arrival(const Request& r) override {
    const auto q = shifted(r);
    run_.metrics_.on_arrival(q);
    run_.timeline_.on_arrival(q);
  }
  void on_drop(const Request& r, DropReason why, Time when) override {
    const auto q = shifted(r);
    const auto t = instant(when, "a drop");
    run_.metrics_.on_drop(q, why, t);
    run_.timeline_.on_drop(q, why, t);
  }
  void on_batch(const Batch& b, Time start, Time end, bool completed) override {
    const auto c = shifted(b);
    const auto s = instant(start, "a batch's start");
    const auto e = instant(end, "a batch's end");
    ordered(s, e, "a batch");
    run_.metrics_.on_batch(c, s, e, completed);
    run_.timeline_.on_batch(c, s, e, completed);
  }
  void on_complete(const Request& r, Time start, Time end) override {
    const auto q = shifted(r);
    const auto s = instant(start, "a completion's start");
    const auto e = instant(end, "a completion");
    ordered(q.arrival, s, "a request");
    ordered(s, e, "a request");
    run_.metrics_.on_complete(q, s, e);
    run_.timeline_.on_complete(q, s, e);
  }
  void on_dispatch(const Batch& b, Time now) override {
    const auto c = shifted(b);
    run_.timeline_.on_dispatch(c, instant(now, "a dispatch"));
  }
  void on_transfer(const Transfer& t, Time start, Time end) override {
    if (t.from_gpu >= run_.description_.gpus.size() || t.to_gpu >= run_.description_.gpus.size())
      throw ProtocolError("events frame: a transfer names GPU " + std::to_string(std::max(t.from_gpu, t.to_gpu)) +
                          " of " + std::to_string(run_.description_.gpus.size()));
    auto moved_transfer = t;
    moved_transfer.not_before = moved(t.not_before);
    const auto s = instant(start, "a transfer's start");
    const auto e = instant(end, "a transfer's end");
    ordered(s, e, "a transfer");
    run_.timeline_.on_transfer(moved_transfer, s, e);
  }
  void on_notice(const RunNotice& n) override {
    for (const auto g : n.gpus)
      if (g >= run_.description_.gpus.size())
        throw ProtocolError("events frame: a notice names GPU " + std::to_string(g) + " of " +
                            std::to_string(run_.description_.gpus.size()));
    auto moved_notice = n;
    moved_notice.time = instant(n.time, "a notice");
    run_.timeline_.on_notice(moved_notice);
  }

 private:
  static constexpr Duration kSlack = Duration::seconds(3600);
  static constexpr std::int64_t kFar = INT64_MAX / 4;

  // Times the run only displays (planned starts, windows): moved to the origin without overflow.
  Time moved(Time t) const { return Duration::nanoseconds(std::clamp(t.count_ns(), -kFar, kFar)) - run_.origin_; }

  // `t` on the run's clock; refused when it is far from any time the run has seen.
  Time instant(Time t, const char* what) {
    if (t.count_ns() > kFar || t.count_ns() < -kFar)
      throw ProtocolError(std::string("events frame: ") + what + " at an impossible time");
    const Time shifted = t - run_.origin_;
    const Time limit = run_.horizon_ ? *run_.horizon_ + Duration::seconds(10) : std::max(run_.latest_, Time()) + kSlack;
    if (shifted < Time() - kSlack || shifted > limit)
      throw ProtocolError(
          std::string("events frame: ") + what + " at " + std::to_string(shifted.to_s()) +
          " s is out of the run's time (latest event " + std::to_string(run_.latest_.to_s()) + " s" +
          (run_.horizon_ ? ", the scheduler's clock " + std::to_string(run_.horizon_->to_s()) + " s" : "") + ")");
    run_.latest_ = std::max(run_.latest_, shifted);
    return shifted;
  }
  static void ordered(Time a, Time b, const char* what) {
    if (b < a) throw ProtocolError(std::string("events frame: ") + what + " ends before it starts");
  }
  Request shifted(const Request& r) {
    if (r.model >= run_.description_.models.size())
      throw ProtocolError("events frame: a request names model " + std::to_string(r.model) + " of " +
                          std::to_string(run_.description_.models.size()));
    auto q = r;
    q.arrival = instant(r.arrival, "an arrival");
    if (r.deadline < r.arrival || r.deadline.count_ns() > kFar || r.deadline - r.arrival > Duration::seconds(86400))
      throw ProtocolError("events frame: a request's deadline is not within a day after its arrival");
    q.deadline = q.arrival + (r.deadline - r.arrival);
    return q;
  }
  Batch shifted(const Batch& b) {
    if (b.model >= run_.description_.models.size() || b.gpu >= run_.description_.gpus.size())
      throw ProtocolError("events frame: a batch names model " + std::to_string(b.model) + " on GPU " +
                          std::to_string(b.gpu) + "; the run has " + std::to_string(run_.description_.models.size()) +
                          " models and " + std::to_string(run_.description_.gpus.size()) + " GPUs");
    auto c = b;
    for (auto& r : c.requests)
      r = shifted(r);
    c.start = moved(b.start);
    c.predicted_end = moved(b.predicted_end);
    c.window_open = moved(b.window_open);
    c.window_close = moved(b.window_close);
    return c;
  }
  LiveRun& run_;
};

LiveRun::LiveRun(SimulationResult description, Duration warmup, Duration utilisation_bin, Time origin)
    : description_(std::move(description)),
      metrics_(description_.models.size(), description_.gpus.size(), warmup, kNever, utilisation_bin),
      origin_(origin) {
  description_.warmup = warmup;
}

void LiveRun::apply(std::span<const std::uint8_t> events) {
  Checked checked(*this);
  events_ += replay_events(events, checked);
}

SimulationResult LiveRun::snapshot() const {
  auto r = aggregates();
  r.timeline = timeline_.spans_by_start();
  r.transfers = timeline_.transfers();
  r.queue_samples = timeline_.queue_samples();
  r.span_requests = timeline_.requests();
  r.drops = timeline_.drops();
  r.notices = timeline_.notices();
  return r;
}

SimulationResult LiveRun::aggregates() const {
  SimulationResult r;
  static_cast<RunLayout&>(r) = description_;
  r.offered_rate_rps = description_.offered_rate_rps;
  r.nominal_capacity_rps = description_.nominal_capacity_rps;
  r.seed = description_.seed;
  r.subclusters = description_.subclusters;
  r.partition_status = description_.partition_status;
  r.plan_system = description_.plan_system;
  r.duration = latest_;
  r.warmup = std::min(description_.warmup, latest_);
  // The aggregates' window ends at the latest event: a copy with that end, counts unchanged.
  auto metrics = std::make_unique<MetricsCollector>(metrics_);
  metrics->set_window_end(latest_);
  r.metrics = std::move(metrics);
  r.sim.end = latest_;
  return r;
}

}  // namespace servescope::engine::live
