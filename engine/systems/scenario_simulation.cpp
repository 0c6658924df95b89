#include "engine/systems/scenario_simulation.h"

#include <algorithm>
#include <chrono>
#include <optional>

#include "engine/sim/request_log.h"
#include "model/core/error.h"
#include "model/core/text.h"
#include "model/scenario/scenario_editing.h"

namespace servescope::engine {

SimulationSetup prepare_simulation(const Scenario& scenario, const SimulationSpec& spec) {
  return prepare_simulation(scenario, spec, data_plane_traits(spec.system));
}

PreparedServing prepare_serving(const Scenario& as_given, const SimulationSpec& spec) {
  if (!(spec.latency_quantile > 0 && spec.latency_quantile < 1))
    throw QueryError("the latency quantile to plan at must be in (0, 1) (got " + std::to_string(spec.latency_quantile) +
                     ")");
  const auto at_quantile = planned_at_quantile(as_given, spec.latency_quantile);
  const Scenario& scenario = at_quantile ? *at_quantile : as_given;
  const auto& traits = data_plane_traits(spec.system);
  const auto& family = data_plane_family(spec.system);
  PreparedServing prepared;
  auto& setup = prepared.setup;
  auto& result = prepared.result;
  setup = prepare_simulation(scenario, spec, traits);
  result.system = spec.system;
  family.place(scenario, spec, prepared);

  double rate = setup.workload_rate_rps;
  if (spec.rate_rps) rate = *spec.rate_rps;
  if (spec.load_factor) rate = *spec.load_factor * result.nominal_capacity_rps;
  if (spec.rate_scale) rate = *spec.rate_scale * setup.workload_rate_rps;
  if (rate <= 0) throw QueryError("the offered rate must be positive");
  const double scale = rate / setup.workload_rate_rps;
  for (auto& s : setup.streams)
    s.rate_rps *= scale;
  result.offered_rate_rps = rate;

  for (const auto& m : setup.models) {
    result.models.push_back(m.name);
    result.model_slo.push_back(m.slo);
  }
  // Placements that keep the cluster's whole GPUs leave the per-slot layout to this.
  if (result.gpu_physical.empty())
    for (std::uint32_t g = 0; g < setup.gpus.size(); ++g)
      result.gpu_physical.push_back(g);
  result.gpu_duty_cycle.resize(setup.gpus.size());
  for (const auto& g : setup.gpus) {
    result.gpus.push_back(g.name);
    result.gpu_types.push_back(g.gpu_type);
    result.gpu_shares.push_back(g.share.to_string());
    result.gpu_server.push_back(g.server);
  }
  for (const auto& server : scenario.cluster.servers())
    result.server_names.push_back(server.name);
  result.duration = spec.duration;
  result.warmup = std::min(spec.warmup, spec.duration);
  result.seed = spec.seed;
  result.runtime_jitter = spec.runtime_jitter;

  family.build(scenario, spec, prepared);
  if (!setup.apps.empty()) prepared.plane = std::make_unique<AppFanout>(std::move(prepared.plane), setup.apps);
  result.sampled_runtime = !spec.exact_runtime && prepared.times && prepared.times->has_spread();
  result.latency_quantile = at_quantile ? spec.latency_quantile : 0;
  // A family with a slowdown of its own (glet's interference) already models its co-location.
  if (!spec.ignore_contention && !prepared.slowdown) {
    auto contention = std::make_shared<SlotContention>(scenario.profiles, result);
    if (contention->any()) prepared.contention = std::move(contention);
  }
  result.contention = prepared.contention != nullptr;
  if (result.sampled_runtime) {
    prepared.spells = slot_spells(scenario.profiles, result);
    for (const auto spell : prepared.spells)
      result.runtime_spell = std::max(result.runtime_spell, spell);
  }
  return prepared;
}

namespace {

// A run is held in memory (its metrics, and its timeline when asked for), so one that would offer
// more requests than that can hold is refused up front, naming the product that is too large,
// rather than left to grow until the machine runs out of memory.
constexpr double kMaxSimulatedRequests = 2e8;

void check_request_count(const std::vector<ArrivalStream>& streams, Duration duration) {
  double rate = 0;
  for (const auto& s : streams) {
    double peak = 1;
    if (const auto* p = std::get_if<PiecewiseArrivals>(&s.process))
      for (const auto& seg : p->segments)
        peak = std::max(peak, seg.rate_multiplier);
    rate += s.rate_rps * peak;
  }
  if (const double expected = rate * duration.to_s(); expected > kMaxSimulatedRequests)
    throw QueryError("this run would offer about " + format_number(expected) + " requests (" + format_number(rate) +
                     " req/s at its peak for " + format_duration(duration) + "); a simulation holds at most " +
                     format_number(kMaxSimulatedRequests) + ": shorten it (--duration) or lower the rate");
}

}  // namespace

std::vector<std::string> runnable_workloads(const Scenario& scenario, const SimulationSpec& spec) {
  const auto& traits = data_plane_traits(spec.system);
  const auto& family = data_plane_family(spec.system);
  std::vector<std::string> out;
  for (const auto& w : scenario.workloads) {
    const bool servable = std::ranges::all_of(w.targets, [&](const WorkloadTarget& t) {
      return (t.kind == TargetKind::Model || traits.serves_applications) && family.serves(spec, t);
    });
    if (servable) out.push_back(w.name);
  }
  return out;
}

namespace {

// The batch times (and contention) of the same run with the execution profiles in place of the
// scenario's; the plane, planned on the scenario's, stays.
void use_execution_profiles(const Scenario& scenario, const SimulationSpec& spec, PreparedServing& prepared) {
  auto timed_spec = spec;
  timed_spec.execution_profiles.reset();
  auto timed = prepare_serving(with_replaced_profiles(scenario, *spec.execution_profiles), timed_spec);
  if (timed.result.gpus != prepared.result.gpus)
    throw QueryError("the execution profiles (" + spec.execution_profiles_source +
                     ") place the run on other slots than the scenario's: they must profile the same models on the "
                     "same device types and shares");
  prepared.times = std::move(timed.times);
  prepared.contention = std::move(timed.contention);
  prepared.spells = std::move(timed.spells);
  prepared.result.runtime_spell = timed.result.runtime_spell;
  prepared.result.sampled_runtime = timed.result.sampled_runtime;
  prepared.result.contention = timed.result.contention;
  prepared.result.execution_profiles = spec.execution_profiles_source;
}

}  // namespace

SimulationResult simulate(const Scenario& scenario, const SimulationSpec& spec,
                          const std::function<void(double)>& progress) {
  const auto wall_start = std::chrono::steady_clock::now();
  if (!(spec.runtime_jitter >= 0 && spec.runtime_jitter < 1))
    throw QueryError("runtime jitter must be in [0, 1) (got " + std::to_string(spec.runtime_jitter) + ")");
  if (spec.warmup >= spec.duration)
    throw QueryError("the warm-up (" + format_duration(spec.warmup) + ") covers the whole run (" +
                     format_duration(spec.duration) +
                     "): nothing would be measured; run longer than the warm-up or shorten it (--warmup)");
  if (spec.rate_rps && !(*spec.rate_rps >= kMinRateRps && *spec.rate_rps <= kMaxRateRps))
    throw QueryError("an offered rate of " + format_number(*spec.rate_rps) + " req/s is outside " +
                     format_number(kMinRateRps) + " to " + format_number(kMaxRateRps) + " req/s");
  if (spec.rate_scale && !(*spec.rate_scale > 0 && *spec.rate_scale <= 1000))
    throw QueryError("a load of " + format_number(*spec.rate_scale) + " × the workloads' rates is outside (0, 1000]");
  auto prepared = prepare_serving(scenario, spec);
  if (spec.execution_profiles) use_execution_profiles(scenario, spec, prepared);
  check_request_count(prepared.setup.streams, spec.duration);
  auto& setup = prepared.setup;
  auto& result = prepared.result;
  auto& plane = prepared.plane;
  CostedDataPlane* controller = nullptr;
  if (spec.controller) {
    auto costed = std::make_unique<CostedDataPlane>(std::move(plane), *spec.controller);
    controller = costed.get();
    plane = std::move(costed);
  }
  const Time until = spec.duration;
  Duration bin = spec.utilisation_bin;
  if (bin <= Duration())
    bin = std::max(Duration::milliseconds(1), Duration::nanoseconds(spec.duration.count_ns() / 200));
  result.metrics =
      std::make_unique<MetricsCollector>(setup.models.size(), setup.gpus.size(), result.warmup, until, bin);
  TimelineRecorder timeline;
  RecorderFanout fanout;
  fanout.add(*result.metrics);
  if (spec.timeline) fanout.add(timeline);
  std::optional<RequestLogRecorder> request_log;
  if (spec.request_log) fanout.add(request_log.emplace(*spec.request_log, result.models, result.gpus));

  WorkloadArrivals arrivals(setup.streams, until, spec.seed);
  Simulator sim(setup.gpus.size(), std::move(*prepared.times), arrivals, *plane, fanout);
  sim.set_network(prepared.network ? *prepared.network : network_of(setup));
  if (spec.runtime_jitter > 0) sim.set_runtime_jitter(spec.runtime_jitter, spec.seed ^ 0x9e3779b97f4a7c15ULL);
  if (result.sampled_runtime) sim.set_runtime_sampling(runtime_sampling_seed(spec.seed), prepared.spells);
  if (spec.hops.any()) sim.set_hops(spec.hops);
  if (prepared.slowdown)
    sim.set_slowdown([&sim, &slowdown = prepared.slowdown](std::uint32_t gpu, const Batch& batch) {
      return slowdown(sim, gpu, batch);
    });
  if (prepared.contention)
    sim.set_contention(
        prepared.contention->device(),
        [&c = *prepared.contention](std::uint32_t gpu, int batch, int slots) { return c.slowdown(gpu, batch, slots); });
  if (progress || spec.stop.stop_possible()) {
    const double horizon = static_cast<double>((until + spec.drain).count_ns());
    // `horizon` by value: this block ends before the simulator calls back.
    sim.set_progress([&, horizon](Time now) {
      if (spec.stop.stop_requested()) throw Cancelled("the simulation was stopped");
      if (progress) progress(std::min(1.0, static_cast<double>(now.count_ns()) / horizon));
    });
  }
  sim.run(until + spec.drain);
  if (progress) progress(1.0);
  result.sim = sim.stats();
  if (controller) result.controller = controller->stats();
  if (prepared.collect) prepared.collect(result);
  result.timeline = timeline.spans_by_start();
  result.transfers = timeline.transfers();
  result.queue_samples = timeline.queue_samples();
  result.span_requests = timeline.requests();
  result.drops = timeline.drops();
  result.wall_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - wall_start).count();
  return std::move(result);
}

}  // namespace servescope::engine
