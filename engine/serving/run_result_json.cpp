#include "engine/serving/run_result_json.h"

#include <algorithm>

#include "engine/symphony/autoscaler.h"
#include "model/io/json_cursor.h"

namespace servescope::engine {
namespace {

double ms(Duration d) {
  return d.to_ms();
}

int median_batch(const std::vector<std::uint64_t>& sizes, std::uint64_t batches) {
  std::uint64_t seen = 0;
  for (std::size_t s = 0; s < sizes.size(); ++s) {
    seen += sizes[s];
    if (2 * seen >= batches && batches > 0) return static_cast<int>(s);
  }
  return 0;
}

double mean_batch(const std::vector<std::uint64_t>& sizes, std::uint64_t batches) {
  double sum = 0;
  for (std::size_t s = 0; s < sizes.size(); ++s)
    sum += static_cast<double>(s) * static_cast<double>(sizes[s]);
  return batches ? sum / static_cast<double>(batches) : 0.0;
}

nlohmann::json histogram_json(const std::vector<std::uint64_t>& sizes) {
  nlohmann::json j = nlohmann::json::object();
  for (std::size_t s = 1; s < sizes.size(); ++s)
    if (sizes[s]) j[std::to_string(s)] = sizes[s];
  return j;
}

nlohmann::json latency_json(const LatencyHistogram& h) {
  return {{"p50", ms(h.quantile(0.5))},
          {"p90", ms(h.quantile(0.9))},
          {"p99", ms(h.quantile(0.99))},
          {"max", ms(h.max())},
          {"mean", h.mean_ns() / 1e6}};
}

nlohmann::json drops_json(const ModelRunStats& s) {
  nlohmann::json j = nlohmann::json::object();
  for (int r = 0; r < kDropReasonCount; ++r)
    if (s.drops_by_reason[static_cast<std::size_t>(r)])
      j[std::string(to_string(static_cast<DropReason>(r)))] = s.drops_by_reason[static_cast<std::size_t>(r)];
  return j;
}
}  // namespace

RunSummary summarize_run(const SimulationResult& r) {
  RunSummary s;
  const auto total = r.metrics->total();
  s.arrivals = total.arrivals;
  s.completed = total.completed;
  s.on_time = total.on_time;
  s.late = total.late();
  s.dropped = total.dropped;
  s.unfinished = total.unfinished();
  s.slo_attainment = total.attainment();
  s.bad_rate = 1.0 - s.slo_attainment;
  const double window_s = (r.metrics->window_end() - r.metrics->window_start()).to_s();
  s.goodput_rps = window_s > 0 ? static_cast<double>(s.on_time) / window_s : 0;
  s.p50 = total.latency.quantile(0.5);
  s.p99 = total.latency.quantile(0.99);
  s.max = total.latency.max();
  s.mean_batch = mean_batch(total.batch_sizes, total.batches);
  s.median_batch = median_batch(total.batch_sizes, total.batches);
  const auto busy = r.metrics->gpu_busy_fraction();
  for (double b : busy) {
    s.mean_gpu_busy += b;
    if (b > 0.01) ++s.gpus_used;
  }
  if (!busy.empty()) s.mean_gpu_busy /= static_cast<double>(busy.size());
  for (const auto& m : r.metrics->models())
    if (m.arrivals) s.worst_model_miss = std::max(s.worst_model_miss, 1.0 - m.attainment());
  return s;
}

namespace {

// Symphony's advice (seed 002 §3.5) for each whole window of the run, as if the cluster followed it.
nlohmann::json autoscaling_json(const MetricsCollector& metrics, int gpus) {
  const AutoscalerOptions options;
  nlohmann::json windows = nlohmann::json::array();
  for (const auto& a : autoscaling_advice(metrics, gpus, options))
    windows.push_back({{"start_s", a.window_start.to_s()},
                       {"gpus", a.gpus},
                       {"bad_rate", a.bad_rate},
                       {"idle_fraction", a.idle_fraction},
                       {"add", a.add},
                       {"release", a.release}});
  return {{"window_s", options.window.to_s()},
          {"bad_rate_threshold", options.bad_rate_threshold},
          {"cooldown_windows", options.cooldown_windows},
          {"windows", std::move(windows)}};
}

// glet-serving: each schedule, when it was decided and when it took over.
nlohmann::json reorganisations_json(const SimulationResult& r) {
  nlohmann::json out = nlohmann::json::array();
  for (const auto& g : r.reorganisations)
    out.push_back({{"decided_s", g.decided.to_s()},
                   {"active_s", g.active.to_s()},
                   {"how", g.how},
                   {"gpus", g.gpus},
                   {"glet_percent", g.total_size_percent}});
  return out;
}

nlohmann::json subclusters_json(const SimulationResult& r) {
  nlohmann::json parts = nlohmann::json::array();
  for (const auto& p : r.subclusters)
    parts.push_back({{"gpus", p.gpus}, {"models", p.models}, {"rate_rps", p.rate_rps}});
  return {{"partition", r.partition_status}, {"parts", std::move(parts)}};
}

}  // namespace

nlohmann::json run_result_to_json(const SimulationResult& r, const std::string& scenario_name) {
  const auto s = summarize_run(r);
  const auto total = r.metrics->total();
  nlohmann::json models = nlohmann::json::array();
  for (std::size_t i = 0; i < r.models.size(); ++i) {
    const auto& m = r.metrics->models()[i];
    models.push_back({{"name", r.models[i]},
                      {"slo_ms", ms(r.model_slo[i])},
                      {"arrivals", m.arrivals},
                      {"completed", m.completed},
                      {"on_time", m.on_time},
                      {"late", m.late()},
                      {"dropped", m.dropped},
                      {"unfinished", m.unfinished()},
                      {"slo_attainment", m.attainment()},
                      {"latency_ms", latency_json(m.latency)},
                      {"queueing_ms", latency_json(m.queueing)},
                      {"batches", m.batches},
                      {"mean_batch_size", mean_batch(m.batch_sizes, m.batches)},
                      {"median_batch_size", median_batch(m.batch_sizes, m.batches)},
                      {"batch_size_histogram", histogram_json(m.batch_sizes)},
                      {"drops_by_reason", drops_json(m)}});
  }
  const double bin_s = r.metrics->bin().to_s();
  nlohmann::json busy_series = nlohmann::json::array();
  for (const auto& gpu : r.metrics->gpu_busy_ns()) {
    nlohmann::json row = nlohmann::json::array();
    for (auto ns : gpu)
      row.push_back(static_cast<double>(ns) / (bin_s * 1e9));
    busy_series.push_back(std::move(row));
  }
  nlohmann::json latency_cdf = nlohmann::json::array();
  for (const auto& [edge, frac] : total.latency.cdf())
    latency_cdf.push_back({ms(edge), frac});
  nlohmann::json config = {
      {"duration_s", r.duration.to_s()},
      {"warmup_s", r.warmup.to_s()},
      {"seed", r.seed},
      {"runtime_jitter", r.runtime_jitter},
      {"runtime", r.sampled_runtime ? "sampled" : "exact"},
      {"contention", r.contention ? "measured" : "none"},
      {"execution_profiles", r.execution_profiles},
      {"latency_quantile", r.latency_quantile},
      {"offered_rate_rps", r.offered_rate_rps},
      {"nominal_capacity_rps", r.nominal_capacity_rps},
      {"load_factor", r.nominal_capacity_rps > 0 ? r.offered_rate_rps / r.nominal_capacity_rps : 0.0},
      {"gpus", r.gpus.size()}};
  if (r.runtime_spell > Duration()) config["runtime_spell_ms"] = r.runtime_spell.to_ms();
  if (r.controller) {
    // What each event was charged and what the data plane's controller went through (controller_cost.h).
    const auto& c = *r.controller;
    config["controller"] = {{"cores", c.cost.cores},
                            {"per_event_us", c.cost.per_event.to_us()},
                            {"events", c.events},
                            {"handler_ns_per_event", c.handler_ns_per_event()},
                            {"mean_wait_ms", c.events ? c.total_wait.to_ms() / static_cast<double>(c.events) : 0.0},
                            {"max_wait_ms", c.max_wait.to_ms()}};
    if (const auto& late = c.cost.lateness)
      config["controller"]["lateness_us"] = {{"p50", late->quantile(0.5).to_us()},
                                             {"p99", late->quantile(0.99).to_us()}};
  }
  return {{"schema_version", kSchemaVersion},
          {"kind", "run-result"},
          {"system", r.system},
          {"scenario", scenario_name},
          {"config", std::move(config)},
          {"summary",
           {{"arrivals", s.arrivals},
            {"completed", s.completed},
            {"on_time", s.on_time},
            {"late", s.late},
            {"dropped", s.dropped},
            {"unfinished", s.unfinished},
            {"slo_attainment", s.slo_attainment},
            {"bad_rate", s.bad_rate},
            {"goodput_rps", s.goodput_rps},
            {"worst_model_miss", s.worst_model_miss},
            {"latency_ms", latency_json(total.latency)},
            {"queueing_ms", latency_json(total.queueing)},
            {"mean_batch_size", s.mean_batch},
            {"median_batch_size", s.median_batch},
            {"mean_gpu_busy", s.mean_gpu_busy},
            {"gpus_used", s.gpus_used},
            {"drops_by_reason", drops_json(total)}}},
          {"batch_size_histogram", histogram_json(total.batch_sizes)},
          {"latency_cdf_ms", latency_cdf},
          {"models", models},
          {"gpus",
           {{"names", r.gpus},
            {"types", r.gpu_types},
            {"shares", r.gpu_shares},
            {"physical", r.gpu_physical},
            {"busy_fraction", r.metrics->gpu_busy_fraction()},
            {"busy_by_type", busy_by_gpu_type(r)}}},
          {"pipeline", r.plan_system.empty() ? nlohmann::json(nullptr)
                                             : nlohmann::json{{"plan_system", r.plan_system},
                                                              {"dispatches", r.dispatches},
                                                              {"probes", r.probes},
                                                              {"probes_per_dispatch",
                                                               r.dispatches > 0 ? static_cast<double>(r.probes) /
                                                                                      static_cast<double>(r.dispatches)
                                                                                : 0.0}}},
          {"timeseries",
           {{"bin_s", bin_s},
            {"arrivals", r.metrics->arrivals_per_bin()},
            {"on_time", r.metrics->on_time_per_bin()},
            {"gpu_busy", busy_series}}},
          {"autoscaling", autoscaling_json(*r.metrics, static_cast<int>(r.gpus.size()))},
          {"subclusters", subclusters_json(r)},
          {"reorganisations", reorganisations_json(r)},
          {"simulator",
           {{"events", r.sim.events},
            {"requests", r.sim.arrivals},
            {"batches", r.sim.batches},
            {"wall_seconds", r.wall_seconds},
            {"requests_per_wall_second",
             r.wall_seconds > 0 ? static_cast<double>(r.sim.arrivals) / r.wall_seconds : 0.0}}}};
}

RunSummary run_summary_from_json(const JsonCursor& summary) {
  summary.expect_object();
  constexpr std::int64_t kCount = std::int64_t{1} << 62;
  const auto count = [&](std::string_view key) {
    return static_cast<std::uint64_t>(summary.int_or(key, 0, 0, kCount));
  };
  RunSummary s;
  s.arrivals = count("arrivals");
  s.completed = count("completed");
  s.on_time = count("on_time");
  s.late = count("late");
  s.dropped = count("dropped");
  s.unfinished = count("unfinished");
  s.slo_attainment = summary.double_or("slo_attainment", 0.0, 0, 1);
  s.bad_rate = summary.double_or("bad_rate", 0.0, 0, 1);
  s.goodput_rps = summary.double_or("goodput_rps", 0.0, 0, 1e12);
  s.worst_model_miss = summary.double_or("worst_model_miss", 0.0, 0, 1);
  if (const auto latency = summary.find("latency_ms")) {
    latency->expect_object();
    const auto at = [&](std::string_view key) {
      return Duration::from_us(1e3 * latency->double_or(key, 0.0, 0, 1e12));
    };
    s.p50 = at("p50");
    s.p99 = at("p99");
    s.max = at("max");
  }
  s.mean_batch = summary.double_or("mean_batch_size", 0.0, 0, 1e9);
  s.median_batch = static_cast<int>(summary.int_or("median_batch_size", 0, 0, 1'000'000'000));
  s.mean_gpu_busy = summary.double_or("mean_gpu_busy", 0.0, 0, 1e6);
  s.gpus_used = static_cast<int>(summary.int_or("gpus_used", 0, 0, 1'000'000));
  return s;
}

}  // namespace servescope::engine
