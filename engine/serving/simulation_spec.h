// What a run of a scenario through one serving system is asked to do: which system and
// workloads, at what rate, for how long, with which seed, and each system's own options. The
// simulator and the live scheduler take the same spec (engine/systems/scenario_simulation.h).
// What only one family reads (Symphony's policies, a pipeline or glet plan) sits in
// family_options, typed by that family.
#pragma once

#include <cstdint>
#include <iosfwd>
#include <memory>
#include <optional>
#include <stop_token>
#include <string>
#include <vector>

#include "engine/dataplane/controller_cost.h"
#include "engine/serving/family_options.h"
#include "engine/sim/live_hops.h"
#include "model/core/time.h"
#include "model/profile/model_profile.h"
#include "model/scenario/latency_quantile.h"

namespace servescope::engine {

struct SimulationSpec {
  std::string system = "symphony";
  std::vector<std::string> workloads;  // names; empty: every workload
  std::string base_dir;                // where relative trace paths start (the scenario's folder)
  std::optional<double> rate_rps;      // total rate, scaling the workloads' rates proportionally
  std::optional<double> load_factor;   // rate = factor × nominal_capacity_rps()
  std::optional<double> rate_scale;    // rate = scale × the workloads' own (a what-if of more load)
  Duration duration = Duration::seconds(60);
  Duration warmup = Duration::seconds(5);
  Duration drain = Duration::seconds(10);  // after arrivals stop, to let queued work finish
  std::uint64_t seed = 1;
  double runtime_jitter = 0;  // each batch runs its profiled time × U[1 − j, 1 + j] (Simulator)
  // Every batch at its profile's median, even where the profile keeps measured distributions,
  // from which batches are otherwise drawn (Simulator::set_runtime_sampling; issue 46).
  bool exact_runtime = false;
  // Batches on slots of one device run as if alone, even where the profiles measured how they
  // slow each other (model/profile/contention_model.h; issue 46), which is otherwise applied.
  bool ignore_contention = false;
  // Batches run by these profiles (and their contention) instead of the scenario's, which the data
  // plane still plans and reserves with: a live run's batches as `calibrate` measured them,
  // scheduled as the live scheduler scheduled them (issue 46). Null: the scenario's.
  std::shared_ptr<const ProfileSet> execution_profiles;
  std::string execution_profiles_source;  // where they came from, for the run's record
  // Plan and reserve against this quantile of each batch's measured latency, where a profile
  // keeps distributions (model/scenario/latency_quantile.h); 0.5 plans on the medians.
  double latency_quantile = kDefaultLatencyQuantile;
  // Charge each event the data plane handles to a controller of this many cores and this CPU
  // time per event (controller_cost.h); empty: decisions are free, as in the papers' simulators.
  std::optional<ControllerCost> controller;
  // The live loop's hops to draw per batch and per transfer (live_hops.h); none: messages are free.
  LiveHops hops;
  bool timeline = false;                                 // keep every batch as a timeline span
  Duration utilisation_bin = Duration::milliseconds(0);  // 0: about 200 bins over the run
  std::ostream* request_log = nullptr;                   // per-request CSV rows (sim/request_log.h)
  // The system's own options (engine/systems/*/…_options.h), plans included.
  FamilyOptions family_options;
  // Asking it to stop ends simulate() soon (within some 65,000 events) with Cancelled: a GUI
  // closing or a user pressing Stop does not wait for a long run.
  std::stop_token stop;

  // The family's options: read (its defaults if none were set), and set.
  template <class Options>
  const Options& options() const {
    return family_options.get<Options>();
  }
  template <class Options>
  Options& edit_options() {
    return family_options.edit<Options>();
  }
};

}  // namespace servescope::engine
