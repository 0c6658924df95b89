// PPipe's planners against the authors' own plans (../shared/data/PPipe/data/plans), re-solved
// with GLPK from the artifact's profiles (PPipe digest §6): on the 24 multi-model maf19 cases
// our max-min normalised throughput must reach 99.5 % of the reference `v4` (PPipe), `bl` (NP)
// and `dart-r` plans, and on the 18 single-model 3-partition ablation cases 99.5 % of `v4`.
// Every plan we emit also passes the independent checker. Skips when the data is absent.
#include <algorithm>
#include <gtest/gtest.h>

#include "engine/ppipe/reference_case.h"
#include "tests/support/pipeline_plan_checker.h"
#include "tests/support/test_support.h"

using namespace servescope;
using namespace servescope::engine;

namespace {

PipelinePlan plan_with(const std::string& system, const ReferenceCase& c, bool several_configs) {
  const auto models = c.planner_models();
  auto options = c.options;
  options.several_configs_per_sequence = several_configs;
  if (system == "v4") return plan_ppipe(models, c.gpus, options);
  if (system == "bl") return plan_np(models, c.gpus, options);
  return plan_dart_r(models, c.gpus, options);
}

struct CaseCounts {
  int cases = 0;
  int reference_over_cluster = 0;  // reference plans needing more GPUs than the cluster, whole GPUs per partition
};

// Plans every reference file of `folder`/`system` whose name contains `filter`. Every plan must
// reach 99.5 % of the reference's normalised throughput; with `at_least_reference`, every plan
// whose reference fits the cluster with whole GPUs per partition must reach 100 % of it.
CaseCounts check_cases(const std::filesystem::path& data, const std::string& folder, const std::string& system,
                       const std::string& filter, bool several_configs = false, bool at_least_reference = false) {
  ReferenceProfiles profiles;
  CaseCounts counts;
  for (const auto& file : reference_plan_files(data, folder, system)) {
    if (file.filename().string().find(filter) == std::string::npos) continue;
    ++counts.cases;
    const auto c = load_reference_case(data, file, profiles);
    const auto plan = plan_with(system, c, several_configs);
    const double ours = normalised_throughput_rps(plan), theirs = c.reference_normalised_rps();
    std::string per_model;
    for (const auto& m : plan.models)
      per_model += " " + m.name.substr(0, 12) + " " + std::to_string(m.throughput_rps);
    for (const auto& n : plan.notes)
      per_model += "\n  " + n;
    const bool fits = c.reference_fits_whole_gpus();
    if (!fits) ++counts.reference_over_cluster;
    if (at_least_reference && fits) {
      EXPECT_GE(ours, theirs * (1 - 1e-6)) << c.name << ": ours " << ours << " req/s, reference " << theirs;
    }
    EXPECT_GE(ours, 0.995 * theirs) << system << " " << c.name << ": ours " << ours << " req/s, reference " << theirs
                                    << " req/s;" << per_model;
    EXPECT_EQ(test::check_pipeline_plan(plan, {c.planner_models(), c.gpus, c.options.slo_margin, c.options.nic_cap}),
              std::vector<std::string>{})
        << system << " " << c.name;
    std::cout << folder << "/" << system << " " << c.name.substr(0, 40) << "…: ours " << ours << ", reference "
              << theirs << " (" << 100 * ours / theirs << " %), " << plan.solve.columns << " columns, "
              << plan.solve.seconds << " s" << (fits ? "" : ", reference over the cluster with whole GPUs") << "\n";
  }
  return counts;
}

class Maf19 : public testing::TestWithParam<const char*> {};

}  // namespace

TEST_P(Maf19, PpipeNpAndDartRReachTheReferencePlans) {
  SERVESCOPE_REQUIRE_SHARED_DATA("PPipe/data/plans/maf19");
  const auto data = shared_data / "PPipe/data";
  const std::string pair = std::string("_") + GetParam() + "_";
  // Six model groups per GPU pair.
  EXPECT_EQ(check_cases(data, "maf19", "v4", pair).cases, 6);
  EXPECT_EQ(check_cases(data, "maf19", "bl", pair).cases, 6);
  EXPECT_EQ(check_cases(data, "maf19", "dart-r", pair).cases, 6);
}

// The frontier search against GLPK on the same cases (PPipe and NP): the same max-min optimum,
// and lexicographic stages that keep it and never end lexicographically below it.
TEST_P(Maf19, FrontierSearchReachesTheMilpOptimumAndLexKeepsIt) {
  SERVESCOPE_REQUIRE_SHARED_DATA("PPipe/data/plans/maf19");
  const auto data = shared_data / "PPipe/data";
  const std::string pair = std::string("_") + GetParam() + "_";
  ReferenceProfiles profiles;
  int cases = 0;
  for (const auto& file : reference_plan_files(data, "maf19", "v4")) {
    if (file.filename().string().find(pair) == std::string::npos) continue;
    ++cases;
    const auto c = load_reference_case(data, file, profiles);
    const auto models = c.planner_models();
    for (const bool np : {false, true}) {
      auto o = c.options;
      const auto plan = [&](PpipeObjective objective, PpipeSolver solver) {
        o.objective = objective;
        o.solver = solver;
        auto p = np ? plan_np(models, c.gpus, o) : plan_ppipe(models, c.gpus, o);
        EXPECT_TRUE(p.solve.proven_optimal) << c.name;
        EXPECT_EQ(test::check_pipeline_plan(p, {models, c.gpus, o.slo_margin, o.nic_cap}), std::vector<std::string>{})
            << c.name;
        return p;
      };
      const auto milp = plan(PpipeObjective::MaxMin, PpipeSolver::Milp);
      const auto frontier = plan(PpipeObjective::MaxMin, PpipeSolver::Frontier);
      const auto lex = plan(PpipeObjective::LexMaxMin, PpipeSolver::Auto);
      const std::string what = c.name + (np ? " (NP)" : " (PPipe)");
      EXPECT_EQ(frontier.solve.solver, "frontier") << what;
      EXPECT_NEAR(frontier.solve.objective, milp.solve.objective, 1e-6 * milp.solve.objective) << what;
      EXPECT_NEAR(lex.solve.objective, frontier.solve.objective, 1e-9 * frontier.solve.objective) << what;
      EXPECT_FALSE(std::ranges::lexicographical_compare(test::sorted_normalised_rates(lex),
                                                        test::sorted_normalised_rates(frontier)))
          << what;
    }
  }
  EXPECT_EQ(cases, 6);
}

INSTANTIATE_TEST_SUITE_P(GpuPairs, Maf19, testing::Values("L4-P4", "L4-T4", "V100-P4", "V100-T4"));

TEST(PpipeAblation, ThreePartitionPlansReachTheReferencePlans) {
  SERVESCOPE_REQUIRE_SHARED_DATA("PPipe/data/plans/ablation");
  EXPECT_EQ(check_cases(shared_data / "PPipe/data", "ablation", "v4", "").cases, 18);
}

// The authors' ablation plans sometimes run two pools with one type sequence (RepVGG: two L4→T4
// pipelines), which the paper's one-config-per-sequence rule forbids; with that rule relaxed our
// plan must match or beat every reference plan that is deployable with whole GPUs per partition.
// Six reference plans are not (they need 76–77 T4s of 75): their partitions hold fractional GPUs.
TEST(PpipeAblation, SeveralConfigsPerSequenceMatchEveryDeployableReferencePlan) {
  SERVESCOPE_REQUIRE_SHARED_DATA("PPipe/data/plans/ablation");
  const auto counts = check_cases(shared_data / "PPipe/data", "ablation", "v4", "", true, true);
  EXPECT_EQ(counts.cases, 18);
  EXPECT_EQ(counts.reference_over_cluster, 6);
}
