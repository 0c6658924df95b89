// PPipe's control plane against the digest's GLPK-verified golden plans (digest §7 T14, T15) on
// the authors' FCN profiles (../shared/data/PPipe/data). Skips when the data is absent. Every
// plan also passes the independent checker.
#include <gtest/gtest.h>

#include "engine/ppipe/ppipe_planner.h"
#include "model/import/ppipe_import.h"
#include "model/io/document.h"
#include "tests/support/pipeline_plan_checker.h"
#include "tests/support/test_support.h"

using namespace servescope;
using namespace servescope::engine;

namespace {

const char* kFcn = "fcn-d6_r101-d16_4xb2-40k_cityscapes-512x1024";

std::vector<PlannerGpuType> cluster_types(const char* builtin) {
  const auto doc = load_document(std::string("builtin:clusters/") + builtin);
  return planner_gpu_types(std::get<Cluster>(doc.content));
}

void expect_feasible(const PipelinePlan& plan, const std::vector<PlannerModel>& models,
                     const std::vector<PlannerGpuType>& gpus, double margin) {
  EXPECT_EQ(test::check_pipeline_plan(plan, {models, gpus, margin, true}), std::vector<std::string>{});
}

}  // namespace

TEST(PpipeT14, FcnOnHc3sReproducesThePapersFigure11Plan) {
  SERVESCOPE_REQUIRE_SHARED_DATA("PPipe/data/models");
  const auto fcn = import_ppipe_model(shared_data / "PPipe/data", kFcn, GpuCatalog::builtin());
  ASSERT_TRUE(fcn.default_slo);
  EXPECT_NEAR(fcn.default_slo->to_us(), 33278.6, 0.05);
  const auto gpus = cluster_types("hc3-s.json");
  ASSERT_EQ(gpus.size(), 2u);
  const std::vector<PlannerModel> models = {{&fcn, *fcn.default_slo}};

  const auto np = plan_np(models, gpus);
  EXPECT_NEAR(np.total_throughput_rps(), 686.15, 0.01);
  expect_feasible(np, models, gpus, 0.4);

  const auto plan = plan_ppipe(models, gpus);
  EXPECT_TRUE(plan.solve.proven_optimal) << plan.solve.status;
  EXPECT_NEAR(plan.total_throughput_rps(), 1213.17, 0.01);
  expect_feasible(plan, models, gpus, 0.4);
  // Fig. 11: V100 whole model at batch 2 on 1 GPU, and P4 ×12 [0,7) → V100 1/2 ×6 [7,10) at batch 1.
  bool whole = false, piped = false;
  for (const auto& p : plan.pipelines) {
    if (p.partitions.size() == 1 && p.partitions[0].gpu == "V100" && p.batch == 2 && p.partitions[0].gpus == 1)
      whole = true;
    if (p.partitions.size() == 2 && p.batch == 1 && p.partitions[0].gpu == "P4" && p.partitions[0].vgpus == 12 &&
        p.partitions[0].blocks == BlockRange{0, 7} && p.partitions[1].gpu == "V100" &&
        p.partitions[1].vgpu_divisor == 2 && p.partitions[1].vgpus == 6) {
      piped = true;
      EXPECT_NEAR(p.latency.to_us(), 18195, 1.0);
      EXPECT_NEAR(p.capacity_rps, 1050.6, 0.1);
    }
  }
  EXPECT_TRUE(whole);
  EXPECT_TRUE(piped);

  PpipeOptions no_eb;
  no_eb.batch_forming = false;
  EXPECT_NEAR(plan_ppipe(models, gpus, no_eb).total_throughput_rps(), 1222.14, 0.01);
  PpipeOptions several;
  several.several_configs_per_sequence = true;
  const auto relaxed = plan_ppipe(models, gpus, several);
  EXPECT_NEAR(relaxed.total_throughput_rps(), 1218.92, 0.01);
  expect_feasible(relaxed, models, gpus, 0.4);
  no_eb.max_partitions = 3;
  const auto p3 = plan_ppipe(models, gpus, no_eb);
  EXPECT_NEAR(p3.total_throughput_rps(), 1222.14, 0.01);
  expect_feasible(p3, models, gpus, 0.4);
  RecordProperty("columns_p2", plan.solve.columns);
  RecordProperty("seconds_p2", std::to_string(plan.solve.seconds));
  RecordProperty("columns_p3", p3.solve.columns);
  RecordProperty("seconds_p3", std::to_string(p3.solve.seconds));
}

TEST(PpipeT15, FcnOnHc2lNeedsSameTypePipelinesWithDifferentVgpuSizes) {
  SERVESCOPE_REQUIRE_SHARED_DATA("PPipe/data/models");
  const auto fcn = import_ppipe_model(shared_data / "PPipe/data", kFcn, GpuCatalog::builtin());
  const auto gpus = cluster_types("hc2-l.json");
  const std::vector<PlannerModel> models = {{&fcn, *fcn.default_slo}};
  PpipeOptions o;
  o.slo_margin = 0.1;
  const auto np = plan_np(models, gpus, o);
  EXPECT_NEAR(np.total_throughput_rps(), 10002.9, 0.1);
  const auto plan = plan_ppipe(models, gpus, o);
  EXPECT_NEAR(plan.total_throughput_rps(), 10211.66, 0.01);
  expect_feasible(plan, models, gpus, 0.1);
  bool t4_to_t4 = false;
  for (const auto& p : plan.pipelines)
    if (p.partitions.size() == 2 && p.partitions[0].gpu == "T4" && p.partitions[1].gpu == "T4" &&
        p.partitions[0].vgpu_divisor == 2 && p.partitions[1].vgpu_divisor == 1)
      t4_to_t4 = true;
  EXPECT_TRUE(t4_to_t4);
}
