// The glet reproduction's stand-in models (docs/reproduction/glet.md; seed 003 §5): the paper's
// nine models with the third-party Gpulet RTX 2080 Ti latency table where it covers them and
// synthetic profiles calibrated to Table 4's SLOs where it does not, the authors' L2/DRAM
// utilisation and interference coefficients, scenarios on the paper's 4 GPUs, and the measure
// both repro programs share: the median violation rate of a plan in the simulator. Needs
// ../shared/data.
#pragma once

#include <cstdint>
#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "engine/glet/glet_plan.h"
#include "model/scenario/scenario.h"

namespace servescope::bench {

extern const std::vector<int> kSizes;

std::filesystem::path shared();

// Paper model → (stand-in latency table, UTIL.CSV name, Table 4 SLO in ms for synthetic ones).
struct PaperModel {
  std::string abbr, standin, util;
  int table4_slo_ms;
};
extern const std::vector<PaperModel> kModels;

struct Library {
  std::map<std::string, ModelProfile> profiles;  // by paper abbreviation
  std::map<std::string, UtilisationProfile> utilisation;
  InterferenceModel interference;
};

Library load_library();

// One workload member: a name, the profile it runs and an SLO override; `rate_rps` > 0 gives it
// its own rate (make_scenario's `rate_each` otherwise).
struct Member {
  std::string name, profile;
  std::optional<Duration> slo;
  double rate_rps = 0;
};

// One workload sending `rate_each` to every member (or each its own rate) on the paper's 4 GPUs.
// With `app`, the workload sends `rate_each` application requests instead (each module then sees
// that rate), and the members are the models its modules run.
Scenario make_scenario(const Library& lib, const std::vector<Member>& members, double rate_each,
                       const std::optional<Application>& app = std::nullopt);

// Median violation rate (late + dropped over all) of `plan` over seeds 1..`seeds`.
double median_violations(const Scenario& s, const engine::GletPlan& plan, int seeds, Duration duration);

}  // namespace servescope::bench
