#include "engine/live/live_run.h"

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
  return {{"system", r.system}, {"plan_system", r.plan_system}, {"models", models},
          {"gpus", gpus},       {"servers", r.server_names},    {"offered_rate_rps", r.offered_rate_rps},
          {"seed", r.seed},     {"warmup_s", r.warmup.to_s()},  {"nominal_capacity_rps", r.nominal_capacity_rps}};
}

SimulationResult run_from_description(const nlohmann::json& json, const std::string& source) {
  const JsonCursor run(json, source);
  run.expect_object({"system", "plan_system", "models", "gpus", "servers", "offered_rate_rps", "seed", "warmup_s",
                     "nominal_capacity_rps"});
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
  r.subclusters.push_back(SubclusterSummary{r.gpus.size(), r.models, r.offered_rate_rps});
  r.partition_status = "live";
  return r;
}

// Forwards to the run's recorders after checking each record's indices against the run's tables.
class LiveRun::Checked final : public RunRecorder {
 public:
  explicit Checked(LiveRun& run) : run_(run) {}
  void on_arrival(const Request& r) override {
    check(r);
    seen(r.arrival);
    run_.metrics_.on_arrival(r);
    run_.timeline_.on_arrival(r);
  }
  void on_drop(const Request& r, DropReason why, Time when) override {
    check(r);
    seen(when);
    run_.metrics_.on_drop(r, why, when);
    run_.timeline_.on_drop(r, why, when);
  }
  void on_batch(const Batch& b, Time start, Time end, bool completed) override {
    check(b);
    seen(end);
    run_.metrics_.on_batch(b, start, end, completed);
    run_.timeline_.on_batch(b, start, end, completed);
  }
  void on_complete(const Request& r, Time start, Time end) override {
    check(r);
    seen(end);
    run_.metrics_.on_complete(r, start, end);
    run_.timeline_.on_complete(r, start, end);
  }
  void on_dispatch(const Batch& b, Time now) override {
    check(b);
    seen(now);
    run_.timeline_.on_dispatch(b, now);
  }
  void on_transfer(const Transfer& t, Time start, Time end) override {
    if (t.from_gpu >= run_.description_.gpus.size() || t.to_gpu >= run_.description_.gpus.size())
      throw ProtocolError("events frame: a transfer names GPU " + std::to_string(std::max(t.from_gpu, t.to_gpu)) +
                          " of " + std::to_string(run_.description_.gpus.size()));
    seen(end);
    run_.timeline_.on_transfer(t, start, end);
  }

 private:
  void check(const Request& r) const {
    if (r.model >= run_.description_.models.size())
      throw ProtocolError("events frame: a request names model " + std::to_string(r.model) + " of " +
                          std::to_string(run_.description_.models.size()));
  }
  void check(const Batch& b) const {
    if (b.model >= run_.description_.models.size() || b.gpu >= run_.description_.gpus.size())
      throw ProtocolError("events frame: a batch names model " + std::to_string(b.model) + " on GPU " +
                          std::to_string(b.gpu) + "; the run has " + std::to_string(run_.description_.models.size()) +
                          " models and " + std::to_string(run_.description_.gpus.size()) + " GPUs");
    for (const auto& r : b.requests)
      check(r);
  }
  void seen(Time t) { run_.latest_ = std::max(run_.latest_, t); }
  LiveRun& run_;
};

LiveRun::LiveRun(SimulationResult description, Duration warmup, Duration utilisation_bin)
    : description_(std::move(description)),
      metrics_(description_.models.size(), description_.gpus.size(), warmup, kNever, utilisation_bin) {
  description_.warmup = warmup;
}

void LiveRun::apply(std::span<const std::uint8_t> events) {
  Checked checked(*this);
  events_ += replay_events(events, checked);
}

SimulationResult LiveRun::snapshot() const {
  SimulationResult r;
  r.system = description_.system;
  r.models = description_.models;
  r.model_slo = description_.model_slo;
  r.gpus = description_.gpus;
  r.offered_rate_rps = description_.offered_rate_rps;
  r.nominal_capacity_rps = description_.nominal_capacity_rps;
  r.seed = description_.seed;
  r.subclusters = description_.subclusters;
  r.partition_status = description_.partition_status;
  r.plan_system = description_.plan_system;
  r.gpu_types = description_.gpu_types;
  r.gpu_shares = description_.gpu_shares;
  r.gpu_physical = description_.gpu_physical;
  r.gpu_duty_cycle = description_.gpu_duty_cycle;
  r.gpu_server = description_.gpu_server;
  r.server_names = description_.server_names;
  r.duration = latest_;
  r.warmup = std::min(description_.warmup, latest_);
  // The aggregates' window ends at the latest event: a copy with that end, counts unchanged.
  auto metrics = std::make_unique<MetricsCollector>(metrics_);
  metrics->set_window_end(latest_);
  r.metrics = std::move(metrics);
  r.timeline = timeline_.spans_by_start();
  r.transfers = timeline_.transfers();
  r.queue_samples = timeline_.queue_samples();
  r.span_requests = timeline_.requests();
  r.drops = timeline_.drops();
  r.sim.end = latest_;
  return r;
}

}  // namespace servescope::engine::live
