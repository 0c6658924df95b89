// How commands that produce a profile set end (import, estimate): written atomically to --out
// with a summary of what it holds, or printed as JSON when no file is named.
#pragma once

#include <string>
#include <vector>

#include "app/cli/cli_context.h"
#include "model/scenario/scenario.h"

namespace servescope::cli {

// A scenario that plans a measured profile straight away (profile --scenario-out): the measured
// device as a type of its own, a cluster of `nodes` servers with one each (named PREFIX0, …), the
// profile with the device's measured contention, and one workload of it at `rate_rps`.
Scenario measured_scenario(const ModelProfile& profile, const GpuSpec& device, int nodes, double rate_rps,
                           const std::string& node_prefix, const std::vector<ContentionModel>& contention = {});

int write_profiles(const GlobalOptions& global, const std::string& out, const ProfileSet& set,
                   const std::vector<std::string>& warnings);

}  // namespace servescope::cli
