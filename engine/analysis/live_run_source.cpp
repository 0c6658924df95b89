#include "engine/analysis/live_run_source.h"

#include <algorithm>
#include <climits>
#include <cmath>
#include <cstdio>

#include "engine/analysis/decision_record.h"
#include "engine/analysis/prediction_report.h"
#include "engine/systems/plan_to_run.h"
#include "model/core/error.h"
#include "model/io/json_cursor.h"

namespace servescope::engine {

void use_recorded_load(SimulationSpec& spec, const nlohmann::json& run, const std::string& name) {
  if (!is_live_run(run))
    throw QueryError("'" + name + "' was not recorded from a live deployment (keep one on the Live tab)");
  const JsonCursor body(run, name);
  const auto config = body.at("config");
  // When the load ran (load_window): the scheduler's own rate is its workload's, which the load
  // generator may not have sent (`live loadgen --rate`), and its lifetime includes the waits.
  auto arrivals = static_cast<double>(body.at("summary").int_or("arrivals", 0, 0, std::int64_t{1} << 50));
  double load_from_s = 0, load_s = config.double_or("duration_s", 0, 0, 1e7);
  if (const auto load = load_window(body)) {
    load_from_s = load->from_s;
    load_s = load->to_s - load->from_s;
    arrivals = load->arrivals;
  }
  if (arrivals <= 0 || load_s <= 0) throw QueryError("'" + name + "' records no requests to predict");
  spec.rate_rps = arrivals / load_s;
  spec.duration = Duration::from_s(load_s);
  // The warm-up counts from the scheduler's start; the simulation's arrivals start at once.
  spec.warmup = Duration::from_s(std::clamp(config.double_or("warmup_s", 0, 0, 1e7) - load_from_s, 0.0, load_s / 2));
  spec.seed = static_cast<std::uint64_t>(config.int_or("seed", 1, 0, INT64_MAX));
  if (const double q = config.double_or("latency_quantile", 0, 0, 1); q > 0) spec.latency_quantile = q;
}

LiveRunSource live_run_source(const Project& project, const SavedArtifact& run, const std::string& preferred_plan) {
  LiveRunSource out;
  auto& spec = out.spec;
  use_recorded_load(spec, run.body, run.name);
  const JsonCursor body(run.body, run.name);
  const auto system = body.at("system").as_string();
  const auto pipeline = body.find("pipeline");
  const bool served_plan = pipeline && !pipeline->value().is_null();
  if (served_plan) {
    const auto plan_system = pipeline->at("plan_system").as_string();
    const auto is_candidate = [&](const SavedArtifact& plan) {
      return plan.body.is_object() && plan.body.value("system", std::string()) == plan_system;
    };
    auto it = std::ranges::find_if(
        project.plans, [&](const SavedArtifact& plan) { return plan.name == preferred_plan && is_candidate(plan); });
    if (it == project.plans.end()) it = std::ranges::find_if(project.plans, is_candidate);
    if (it == project.plans.end())
      throw QueryError("'" + run.name + "' served a " + plan_system + " plan, and the project holds none to run");
    use_plan(spec, it->body, it->name, system);
    out.label = "plan " + it->name;
    if (std::ranges::count_if(project.plans, is_candidate) > 1)
      out.notes.push_back("the record does not say which " + plan_system + " plan ran: '" + it->name + "' was used");
  } else {
    spec.system = system;
    out.label = system;
  }
  if (const auto lateness = recorded_decision_lateness(run.body, run.name)) {
    // The live loop was late by this much (on cores the workers keep busy), and the prediction
    // is late alike: drawn per event, not queued (docs/reproduction/fidelity.md).
    draw_decision_lateness(spec, *lateness);
    char text[200];
    std::snprintf(text, sizeof text,
                  "each decision is as late as the live scheduler's were (median %.0f µs, p99 %.0f µs, drawn)",
                  lateness->median().to_us(), lateness->quantile(0.99).to_us());
    out.notes.push_back(text);
  } else if (const auto cost = recorded_decision_cost(run.body, run.name)) {
    char text[200];
    std::snprintf(text, sizeof text,
                  "the live scheduler's decisions took %.0f µs on average; its record keeps no distribution of "
                  "them, so the prediction's are on time",
                  cost->per_event.to_us());
    out.notes.push_back(text);
  }
  if (auto hops = recorded_live_hops(run.body, run.name); hops.any()) {
    // Its orders, reports and feature maps travelled between processes; the prediction's do alike.
    char text[300];
    if (hops.batch) {
      std::snprintf(
          text, sizeof text,
          "each batch ordered to start at once starts as late as the live run's did (median %.0f µs, p99 %.0f "
          "µs, drawn)",
          hops.batch->median().to_us(), hops.batch->quantile(0.99).to_us());
      out.notes.push_back(text);
    }
    if (hops.transfer) {
      std::snprintf(text, sizeof text,
                    "each feature map takes as much longer than its link's time as the live run's did (median %.0f "
                    "µs, p99 %.0f µs, drawn)",
                    hops.transfer->median().to_us(), hops.transfer->quantile(0.99).to_us());
      out.notes.push_back(text);
    }
    draw_live_hops(spec, std::move(hops));
  }
  out.notes.push_back("the data plane's own options are not in the record: the Run tab's are used");
  return out;
}

}  // namespace servescope::engine
