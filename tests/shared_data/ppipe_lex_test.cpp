// PPipe's lexicographic max-min and the exact frontier search (docs/reproduction/ppipe.md
// "Lexicographic max-min", "Frontier search") on the two mixes of issue 25, with the artifact's
// profiles (../shared/data/PPipe/data): lexicographic stages keep the paper's z and put idle GPUs
// to work, and the frontier search reaches the MILP's proven optimum. Skips without the data.
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

void describe(const char* what, const PipelinePlan& plan) {
  std::cout << what << ": " << plan.solve.solver << " " << plan.solve.objective_kind << " z " << plan.solve.objective
            << ", " << gpus_used(plan) << " GPUs, " << plan.solve.seconds << " s;";
  for (const auto& m : plan.models)
    std::cout << " " << m.name.substr(0, 14) << " " << m.throughput_rps << " (" << m.throughput_rps / m.weight << ")";
  std::cout << "\n";
  for (const auto& p : plan.pipelines) {
    std::cout << "    " << p.model.substr(0, 10) << " b" << p.batch << " assigned " << p.assigned_rps << " cap "
              << p.capacity_rps << ":";
    for (const auto& part : p.partitions)
      std::cout << " " << part.gpu << "/" << part.vgpu_divisor << "x" << part.gpus << "[" << part.blocks.begin << ","
                << part.blocks.end << ") " << part.capacity_rps;
    std::cout << "\n";
  }
  for (const auto& s : plan.solve.stages) {
    std::cout << "  stage z " << s.level << ":";
    for (const auto& n : s.fixed_models)
      std::cout << " " << n.substr(0, 14);
    std::cout << "\n";
  }
}

}  // namespace

TEST(PpipeLex, ExperimentThree) {
  SERVESCOPE_REQUIRE_SHARED_DATA("PPipe/data/models");
  const auto mix = three_model_mix();
  for (auto objective : {PpipeObjective::MaxMin, PpipeObjective::LexMaxMin})
    for (auto solver : {PpipeSolver::Milp, PpipeSolver::Frontier}) {
      PpipeOptions o;
      o.objective = objective;
      o.solver = solver;
      const auto plan = plan_ppipe(mix.models(), mix.gpus, o);
      describe("three", plan);
      EXPECT_EQ(test::check_pipeline_plan(plan, {mix.models(), mix.gpus, o.slo_margin, o.nic_cap}),
                std::vector<std::string>{});
    }
}

TEST(PpipeLex, ExperimentFour) {
  SERVESCOPE_REQUIRE_SHARED_DATA("PPipe/data/models");
  const auto mix = four_model_mix();
  for (auto objective : {PpipeObjective::MaxMin, PpipeObjective::LexMaxMin})
    for (auto solver : {PpipeSolver::Frontier, PpipeSolver::Milp}) {
      PpipeOptions o;
      o.objective = objective;
      o.solver = solver;
      o.time_limit_s = 30;
      const auto plan = plan_ppipe(mix.models(), mix.gpus, o);
      describe("four", plan);
      EXPECT_EQ(test::check_pipeline_plan(plan, {mix.models(), mix.gpus, o.slo_margin, o.nic_cap}),
                std::vector<std::string>{});
    }
}
