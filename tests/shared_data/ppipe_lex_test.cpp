// PPipe's lexicographic max-min and the exact frontier search (docs/reproduction/ppipe.md
// "Lexicographic max-min", "Frontier search") on the two mixes of issue 25, with the artifact's
// profiles (../shared/data/PPipe/data): lexicographic stages keep the paper's z and put idle GPUs
// to work, and the frontier search reaches the MILP's proven optimum. Skips without the data.
#include <algorithm>
#include <gtest/gtest.h>
#include <iostream>

#include "engine/ppipe/ppipe_planner.h"
#include "model/import/ppipe_import.h"
#include "tests/support/pipeline_plan_checker.h"
#include "tests/support/test_support.h"

using namespace servescope;
using namespace servescope::engine;

namespace {

struct Mix {
  std::vector<ModelProfile> profiles;
  std::vector<double> weights;
  std::vector<PlannerGpuType> gpus;
  std::vector<PlannerModel> models() const {
    std::vector<PlannerModel> out;
    for (std::size_t m = 0; m < profiles.size(); ++m)
      out.push_back({&profiles[m], *profiles[m].default_slo, weights[m]});
    return out;
  }
};

Mix load_mix(const std::vector<std::pair<std::string, double>>& models, std::vector<PlannerGpuType> gpus) {
  Mix mix;
  for (const auto& [name, weight] : models) {
    mix.profiles.push_back(import_ppipe_model(test::shared_data_dir() / "PPipe/data", name, GpuCatalog::builtin()));
    mix.weights.push_back(weight);
  }
  mix.gpus = std::move(gpus);
  return mix;
}

// Three models on 10 V100 + 30 T4 + 40 P4, 10 Gbps.
Mix three_model_mix() {
  return load_mix({{"deeplabv3plus_r101-d8_4xb2-40k_cityscapes-512x1024", 0.4},
                   {"resnext152-32x4d_8xb32_in1k", 0.35},
                   {"gfl_r50_fpn_ms-2x_coco", 0.25}},
                  {{"V100", 10, 1, 10}, {"T4", 30, 1, 10}, {"P4", 40, 1, 10}});
}

// Four models on 8 L4 (2 per node), 24 T4 (4 per node), 32 P4 (2 per node), 6 Gbps.
Mix four_model_mix() {
  return load_mix({{"ann_r101-d8_4xb2-40k_cityscapes-512x1024", 0.1},
                   {"cyclegan", 0.4},
                   {"isanet_r101-d8_4xb2-40k_cityscapes-512x1024", 0.2},
                   {"textsnake_resnet50_fpn-unet_1200e_ctw1500", 0.3}},
                  {{"L4", 8, 2, 6}, {"T4", 24, 4, 6}, {"P4", 32, 2, 6}});
}

int gpus_used(const PipelinePlan& plan) {
  int n = 0;
  for (const auto& p : plan.pipelines)
    for (const auto& part : p.partitions)
      n += part.gpus;
  return n;
}

PipelinePlan plan_with(const Mix& mix, PpipeObjective objective, PpipeSolver solver) {
  PpipeOptions o;
  o.objective = objective;
  o.solver = solver;
  auto plan = plan_ppipe(mix.models(), mix.gpus, o);
  EXPECT_EQ(test::check_pipeline_plan(plan, {mix.models(), mix.gpus, o.slo_margin, o.nic_cap}),
            std::vector<std::string>{})
      << to_string(objective) << " " << to_string(solver);
  EXPECT_TRUE(plan.solve.proven_optimal) << to_string(objective) << " " << to_string(solver);
  return plan;
}

void report(const char* what, const PipelinePlan& plan) {
  std::cout << what << ": " << plan.solve.solver << ", z " << plan.solve.objective << ", " << gpus_used(plan)
            << " GPUs (";
  for (const auto& t : {"V100", "L4", "T4", "P4"})
    if (plan.gpus_used(t) > 0) std::cout << " " << plan.gpus_used(t) << " " << t;
  std::cout << " ), " << plan.solve.seconds << " s;";
  for (const auto& m : plan.models)
    std::cout << " " << m.name.substr(0, 14) << " " << m.throughput_rps << " req/s";
  std::cout << "\n";
}

}  // namespace

TEST(PpipeLex, ThreeModelsKeepZAndPutIdleGpusToWork) {
  SERVESCOPE_REQUIRE_SHARED_DATA("PPipe/data/models");
  const auto mix = three_model_mix();
  const auto max_min = plan_with(mix, PpipeObjective::MaxMin, PpipeSolver::Frontier);
  const auto milp = plan_with(mix, PpipeObjective::MaxMin, PpipeSolver::Milp);
  const auto lex = plan_with(mix, PpipeObjective::LexMaxMin, PpipeSolver::Frontier);
  const auto lex_milp = plan_with(mix, PpipeObjective::LexMaxMin, PpipeSolver::Milp);
  report("max-min", max_min);
  report("lex-max-min", lex);
  EXPECT_NEAR(max_min.solve.objective, milp.solve.objective, 1e-6 * milp.solve.objective);
  EXPECT_NEAR(lex.solve.objective, max_min.solve.objective, 1e-9 * max_min.solve.objective) << "z is kept";
  // Every model holds at least its max-min share, two of them far more, on more of the cluster.
  for (std::size_t m = 0; m < lex.models.size(); ++m)
    EXPECT_GE(lex.models[m].throughput_rps / lex.models[m].weight, lex.solve.objective * (1 - 1e-9));
  EXPECT_GT(lex.total_throughput_rps(), 1.5 * max_min.total_throughput_rps());
  EXPECT_GT(gpus_used(lex), gpus_used(max_min));
  ASSERT_EQ(lex.solve.stages.size(), 3u);
  // The MILP, asked the same stage questions, reaches the same levels.
  ASSERT_EQ(lex_milp.solve.stages.size(), lex.solve.stages.size());
  for (std::size_t i = 0; i < lex.solve.stages.size(); ++i) {
    EXPECT_NEAR(lex.solve.stages[i].level, lex_milp.solve.stages[i].level, 1e-6 * lex.solve.stages[i].level);
    EXPECT_EQ(lex.solve.stages[i].fixed_models, lex_milp.solve.stages[i].fixed_models);
  }
}

TEST(PpipeLex, FourModelsOnThreeTypesSolveExactlyByTheFrontier) {
  SERVESCOPE_REQUIRE_SHARED_DATA("PPipe/data/models");
  const auto mix = four_model_mix();
  const auto frontier = plan_with(mix, PpipeObjective::MaxMin, PpipeSolver::Frontier);
  const auto milp = plan_with(mix, PpipeObjective::MaxMin, PpipeSolver::Milp);
  const auto lex = plan_with(mix, PpipeObjective::LexMaxMin, PpipeSolver::Auto);
  report("max-min frontier", frontier);
  report("max-min milp", milp);
  report("lex-max-min", lex);
  EXPECT_EQ(lex.solve.solver, "frontier");
  EXPECT_NEAR(frontier.solve.objective, milp.solve.objective, 1e-6 * milp.solve.objective);
  EXPECT_NEAR(lex.solve.objective, frontier.solve.objective, 1e-9 * frontier.solve.objective);
  EXPECT_FALSE(std::ranges::lexicographical_compare(test::sorted_normalised_rates(lex),
                                                    test::sorted_normalised_rates(frontier)));
  EXPECT_GT(lex.total_throughput_rps(), frontier.total_throughput_rps());
}
