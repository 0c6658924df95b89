// PPipe's lexicographic max-min and the exact frontier search (docs/reproduction/ppipe.md
// "Lexicographic max-min", "Frontier search") on constructed inputs: a stage where every model
// could rise alone but not together; random small clusters checked against a brute force over
// every GPU allocation; random two-partition cases where the frontier search and the MILP must
// reach the same optimum. Every plan goes through the independent checker.
#include <algorithm>
#include <functional>
#include <gtest/gtest.h>
#include <random>

#include "engine/ppipe/ppipe_planner.h"
#include "model/core/error.h"
#include "tests/support/durations.h"
#include "tests/support/pipeline_plan_checker.h"
#include "tests/support/toy_block_model.h"

using namespace servescope;
using namespace servescope::engine;

namespace {

using ::servescope::test::us;

void expect_levels_near(const std::vector<double>& got, const std::vector<double>& want, const std::string& what) {
  ASSERT_EQ(got.size(), want.size()) << what;
  for (std::size_t i = 0; i < got.size(); ++i)
    EXPECT_NEAR(got[i], want[i], 1e-6 * std::max(1.0, want[i])) << what << " level " << i;
}

void expect_checked(const PipelinePlan& plan, const std::vector<PlannerModel>& models,
                    const std::vector<PlannerGpuType>& gpus, const PpipeOptions& o, const std::string& what) {
  EXPECT_EQ(test::check_pipeline_plan(plan, {models, gpus, o.slo_margin, o.nic_cap}), std::vector<std::string>{})
      << what;
}

PpipeOptions whole_models_at_batch_one(PpipeSolver solver) {
  PpipeOptions o;
  o.max_partitions = 1;
  o.vgpu_divisors = {1};
  o.batch_sizes = {1};
  o.batch_forming = false;
  o.solver = solver;
  return o;
}

}  // namespace

TEST(PpipeLex, AStageWhereEveryModelCouldRiseAloneHoldsOneAndRaisesTheOther) {
  // Two models of 10 ms on 3 GPUs: max-min gives each one GPU (100 req/s, z = 200 at weight ½)
  // and leaves the third idle. Either model could take it, not both: the next stage holds one.
  const auto a = test::toy_model("a", {{"H", {10000}}}, 0);
  const auto b = test::toy_model("b", {{"H", {10000}}}, 0);
  const std::vector<PlannerGpuType> gpus = {{"H", 3, 1, 10}};
  const std::vector<PlannerModel> models = {{&a, us(50000), 0.5}, {&b, us(50000), 0.5}};
  for (const auto solver : {PpipeSolver::Frontier, PpipeSolver::Milp}) {
    auto o = whole_models_at_batch_one(solver);
    o.objective = PpipeObjective::MaxMin;
    const auto max_min = plan_ppipe(models, gpus, o);
    EXPECT_NEAR(max_min.solve.objective, 200, 1e-6);
    EXPECT_TRUE(max_min.solve.stages.empty());
    o.objective = PpipeObjective::LexMaxMin;
    const auto lex = plan_ppipe(models, gpus, o);
    const std::string what = to_string(solver);
    EXPECT_EQ(lex.solve.solver, what);
    EXPECT_EQ(lex.solve.objective_kind, "lex-max-min");
    EXPECT_TRUE(lex.solve.proven_optimal) << what;
    EXPECT_NEAR(lex.solve.objective, 200, 1e-6) << what;
    ASSERT_EQ(lex.solve.stages.size(), 2u) << what;
    EXPECT_NEAR(lex.solve.stages[0].level, 200, 1e-6);
    EXPECT_EQ(lex.solve.stages[0].fixed_models, std::vector<std::string>{"a"}) << "a tie holds the first";
    EXPECT_NEAR(lex.solve.stages[1].level, 400, 1e-6);
    EXPECT_EQ(lex.solve.stages[1].fixed_models, std::vector<std::string>{"b"});
    EXPECT_NEAR(lex.models[0].throughput_rps, 100, 1e-6);
    EXPECT_NEAR(lex.models[1].throughput_rps, 200, 1e-6);
    EXPECT_EQ(lex.gpus_used("H"), 3) << what;
    expect_checked(lex, models, gpus, o, what);
  }
}

// Small clusters where every allocation can be listed: whole models at batch 1, so a model's rate
// is Σ_k r_mk·h_mk. The brute force keeps the allocation whose sorted normalised rates are
// lexicographically largest; both solvers must reach the same sorted rates.
TEST(PpipeLex, MatchesABruteForceOverEveryAllocation) {
  std::mt19937 rng(20261127);
  std::uniform_real_distribution<double> latency_us(8000, 40000), weight(0.1, 1);
  std::uniform_int_distribution<int> count(0, 4), model_count(2, 3), type_count(1, 2);
  const std::vector<std::string> type_names = {"H", "L"};
  const Duration slo = us(50000);  // planning SLO 30 ms: slower GPUs cannot serve the model
  int stages_beyond_first = 0;
  for (int trial = 0; trial < 60; ++trial) {
    const int types = type_count(rng), n_models = model_count(rng);
    std::vector<PlannerGpuType> gpus;
    for (int k = 0; k < types; ++k)
      gpus.push_back({type_names[static_cast<std::size_t>(k)], std::max(1, count(rng)), 1, 10});
    std::vector<ModelProfile> profiles;
    std::vector<std::vector<double>> rate(static_cast<std::size_t>(n_models));  // per GPU, 0 when too slow
    for (int m = 0; m < n_models; ++m) {
      std::vector<test::ToyGpu> per_type;
      for (int k = 0; k < types; ++k) {
        const double l = latency_us(rng);
        per_type.push_back({type_names[static_cast<std::size_t>(k)], {l}});
        rate[static_cast<std::size_t>(m)].push_back(l <= 30000 ? 1e6 / l : 0);
      }
      profiles.push_back(test::toy_model("m" + std::to_string(m), per_type, 0));
    }
    std::vector<PlannerModel> models;
    for (int m = 0; m < n_models; ++m)
      models.push_back({&profiles[static_cast<std::size_t>(m)], slo, weight(rng)});

    // Every split of every type's GPUs among the models.
    std::vector<double> best;
    std::vector<std::vector<int>> h(static_cast<std::size_t>(n_models), std::vector<int>(gpus.size(), 0));
    const std::function<void(std::size_t, std::size_t, int)> visit = [&](std::size_t k, std::size_t m, int left) {
      if (k == gpus.size()) {
        std::vector<double> levels;
        for (std::size_t i = 0; i < models.size(); ++i) {
          double r = 0;
          for (std::size_t t = 0; t < gpus.size(); ++t)
            r += rate[i][t] * h[i][t];
          levels.push_back(r / models[i].weight);
        }
        std::ranges::sort(levels);
        if (best.empty() || std::ranges::lexicographical_compare(best, levels)) best = levels;
        return;
      }
      if (m == models.size()) {
        visit(k + 1, 0, k + 1 < gpus.size() ? gpus[k + 1].count : 0);
        return;
      }
      // Idle GPUs cannot change a rate, so a model with no rate on this type takes none.
      for (int take = 0; take <= (rate[m][k] > 0 ? left : 0); ++take) {
        h[m][k] = take;
        visit(k, m + 1, left - take);
      }
      h[m][k] = 0;
    };
    visit(0, 0, gpus[0].count);

    for (const auto solver : {PpipeSolver::Frontier, PpipeSolver::Milp}) {
      const auto o = whole_models_at_batch_one(solver);
      const auto plan = plan_ppipe(models, gpus, o);
      const std::string what = "trial " + std::to_string(trial) + " " + to_string(solver);
      expect_levels_near(test::sorted_normalised_rates(plan), best, what);
      EXPECT_NEAR(plan.solve.objective, best.front(), 1e-6 * std::max(1.0, best.front())) << what;
      expect_checked(plan, models, gpus, o, what);
      if (solver == PpipeSolver::Frontier && plan.solve.stages.size() > 1) ++stages_beyond_first;
    }
  }
  EXPECT_GT(stages_beyond_first, 20) << "the cases should exercise later stages";
}

// Two partitions, vGPU halves, batches 1–4, with and without the one-pool-per-sequence rule: the
// frontier search and GLPK must find the same max-min optimum, and lexicographic stages keep it.
TEST(PpipeFrontier, ReachesTheMilpOptimumOnRandomPipelineCases) {
  std::mt19937 rng(7);
  std::uniform_real_distribution<double> block_us(1000, 9000), weight(0.1, 1);
  std::uniform_int_distribution<int> count(1, 4), model_count(2, 3), type_count(2, 3);
  std::uniform_int_distribution<std::int64_t> cut_bytes(10'000, 2'000'000);
  const std::vector<std::string> type_names = {"A", "B", "C"};
  for (int trial = 0; trial < 24; ++trial) {
    const int types = type_count(rng), n_models = model_count(rng);
    std::vector<PlannerGpuType> gpus;
    for (int k = 0; k < types; ++k)
      gpus.push_back({type_names[static_cast<std::size_t>(k)], count(rng), 2, 10});
    std::vector<ModelProfile> profiles;
    for (int m = 0; m < n_models; ++m) {
      std::vector<test::ToyGpu> per_type;
      for (int k = 0; k < types; ++k)
        per_type.push_back(
            {type_names[static_cast<std::size_t>(k)], {block_us(rng), block_us(rng), block_us(rng)}, {1, 2}});
      profiles.push_back(test::toy_model("m" + std::to_string(m), per_type, cut_bytes(rng)));
    }
    std::vector<PlannerModel> models;
    for (int m = 0; m < n_models; ++m)
      models.push_back({&profiles[static_cast<std::size_t>(m)], us(40000), weight(rng)});
    PpipeOptions o;
    o.batch_forming_rate_rps = 500;
    o.several_configs_per_sequence = trial % 4 == 3;
    o.objective = PpipeObjective::MaxMin;
    const std::string what = "trial " + std::to_string(trial);
    o.solver = PpipeSolver::Milp;
    const auto milp = plan_ppipe(models, gpus, o);
    ASSERT_TRUE(milp.solve.proven_optimal) << what;
    o.solver = PpipeSolver::Frontier;
    const auto frontier = plan_ppipe(models, gpus, o);
    EXPECT_EQ(frontier.solve.solver, "frontier");
    EXPECT_NEAR(frontier.solve.objective, milp.solve.objective, 1e-6 * std::max(1.0, milp.solve.objective)) << what;
    EXPECT_NEAR(test::sorted_normalised_rates(frontier).front(), frontier.solve.objective,
                1e-9 * frontier.solve.objective)
        << what;
    expect_checked(frontier, models, gpus, o, what + " frontier");
    expect_checked(milp, models, gpus, o, what + " milp");
    o.objective = PpipeObjective::LexMaxMin;
    const auto lex = plan_ppipe(models, gpus, o);
    EXPECT_NEAR(lex.solve.objective, frontier.solve.objective, 1e-9 * frontier.solve.objective) << what;
    EXPECT_FALSE(std::ranges::lexicographical_compare(test::sorted_normalised_rates(lex),
                                                      test::sorted_normalised_rates(frontier)))
        << what << ": lexicographic stages never end below max-min";
    expect_checked(lex, models, gpus, o, what + " lex");
  }
}

TEST(PpipeFrontier, RefusesMoreThanThreeGpuTypesAndAutoFallsBackToTheMilp) {
  const auto m = test::toy_model("m", {{"A", {5000}}, {"B", {5000}}, {"C", {5000}}, {"D", {5000}}}, 0);
  const std::vector<PlannerGpuType> gpus = {{"A", 1, 1, 10}, {"B", 1, 1, 10}, {"C", 1, 1, 10}, {"D", 1, 1, 10}};
  auto o = whole_models_at_batch_one(PpipeSolver::Frontier);
  EXPECT_THROW(plan_ppipe({{&m, us(50000)}}, gpus, o), QueryError);
  o.solver = PpipeSolver::Auto;
  const auto plan = plan_ppipe({{&m, us(50000)}}, gpus, o);
  EXPECT_EQ(plan.solve.solver, "milp");
  EXPECT_NEAR(plan.total_throughput_rps(), 4 * 200, 1e-6);
  // Three types of 200 GPUs: 8 million GPU vectors, past what the frontier tabulates. Auto says
  // so and uses the MILP; asked for by name, the frontier is refused before allocating anything.
  const auto big = test::toy_model("big", {{"A", {5000}}, {"B", {5000}}, {"C", {5000}}}, 0);
  const std::vector<PlannerGpuType> many = {{"A", 200, 1, 10}, {"B", 200, 1, 10}, {"C", 200, 1, 10}};
  auto forced = whole_models_at_batch_one(PpipeSolver::Frontier);
  EXPECT_THROW(plan_ppipe({{&big, us(50000)}}, many, forced), QueryError);
  const auto fallback = plan_ppipe({{&big, us(50000)}}, many, whole_models_at_batch_one(PpipeSolver::Auto));
  EXPECT_EQ(fallback.solve.solver, "milp");
  EXPECT_NEAR(fallback.total_throughput_rps(), 600 * 200, 1e-6);
  EXPECT_TRUE(std::ranges::any_of(fallback.notes, [](const std::string& n) {
    return n.find("too many for the frontier search") != std::string::npos;
  }));
}
