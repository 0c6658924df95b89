// Planning against a latency quantile (issue 46, "slack where it is needed"): a measured
// profile's entries keep their distributions, and a plan made on their medians leaves no room
// for the half of the batches that take longer. Planning and reserving on a higher quantile
// (p99 by default) leaves that room. The profiles' tables are replaced by the quantile's curves,
// their distributions kept as they are: batch times drawn from them stay what was measured
// (engine/dataplane/batch_latency.h scales each draw from the table's time back to it).
#pragma once

#include <optional>
#include <string>

#include "model/scenario/scenario.h"

namespace servescope {

inline constexpr double kDefaultLatencyQuantile = 0.99;

// "p99", "p99.9", "median": how a level is named in reports.
std::string quantile_name(double level);

// `profile` with every block table that keeps distributions planned at `level` (in (0, 1)):
// each block's row over the batch sizes is the level's quantile. Tables without distributions
// stay as they are. Returns whether any table changed.
bool plan_at_quantile(ModelProfile& profile, double level);

// The scenario with its profiles planned at `level`; nullopt where no profile keeps
// distributions, so a caller plans on the scenario as it is, without a copy.
std::optional<Scenario> planned_at_quantile(const Scenario& scenario, double level);

}  // namespace servescope
