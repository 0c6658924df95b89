// The PPipe authors' plan files imported as ServeScope's pipeline plan and scenario (issue 49):
// the plan's models, throughputs, SLOs and partitions as the file has them; the cluster its name
// and contents give; a workload offering each model its planned throughput at the plan's SLO.
// The imported pair simulates. Skips when the data is absent.
#include <gtest/gtest.h>

#include "engine/ppipe/reference_case.h"
#include "engine/ppipe/reference_plan_import.h"
#include "engine/systems/ppipe/ppipe_options.h"
#include "engine/systems/scenario_simulation.h"
#include "model/core/error.h"
#include "tests/support/test_support.h"

using namespace servescope;
using namespace servescope::engine;

TEST(PpipePlanImport, AnAuthorsPlanBecomesOursAndSimulates) {
  SERVESCOPE_REQUIRE_SHARED_DATA("PPipe/data/plans/maf19");
  const auto data = shared_data / "PPipe/data";
  const auto files = reference_plan_files(data, "maf19", "v4");
  ASSERT_EQ(files.size(), 24u);
  for (const auto& file : {files.front(), files.back()}) {
    SCOPED_TRACE(file.filename().string());
    ReferenceProfiles profiles;
    const auto reference = load_reference_case(data, file, profiles);
    const auto imported = import_reference_plan(data, file);
    const auto& plan = imported.plan;
    EXPECT_EQ(plan.system, "ppipe");
    ASSERT_EQ(plan.models.size(), reference.reference.size());
    std::size_t pipelines = 0;
    for (std::size_t m = 0; m < plan.models.size(); ++m) {
      const auto& r = reference.reference[m];
      EXPECT_EQ(plan.models[m].name, r.dnn);
      EXPECT_DOUBLE_EQ(plan.models[m].throughput_rps, r.xput_rps);
      EXPECT_EQ(plan.models[m].slo, Duration::from_us(r.slo_us));
      pipelines += r.pipelines.size();
    }
    ASSERT_EQ(plan.pipelines.size(), pipelines);
    // The first pipeline's partitions, as the file has them.
    const auto& first = reference.reference[0].pipelines[0];
    ASSERT_EQ(plan.pipelines[0].partitions.size(), first.partitions.size());
    for (std::size_t k = 0; k < first.partitions.size(); ++k) {
      const auto& ours = plan.pipelines[0].partitions[k];
      EXPECT_EQ(ours.blocks.begin, first.partitions[k].blocks.begin);
      EXPECT_EQ(ours.blocks.end, first.partitions[k].blocks.end);
      EXPECT_EQ(ours.vgpu_divisor, first.partitions[k].mps_divisor);
      EXPECT_EQ(ours.latency, Duration::from_us(first.partitions[k].lat_infer_us));
    }
    // The cluster: every GPU of every type the file name counts.
    const auto by_type = imported.scenario.cluster.gpus_by_type();
    for (const auto& g : reference.gpus)
      EXPECT_EQ(by_type.at(g.gpu), g.count) << g.gpu;
    // The workload offers each model its planned throughput, at the plan's SLO.
    ASSERT_EQ(imported.scenario.workloads.size(), 1u);
    const auto& w = imported.scenario.workloads[0];
    double offered = 0;
    for (std::size_t m = 0; m < w.targets.size(); ++m) {
      EXPECT_EQ(w.targets[m].slo, plan.models[m].slo);
      offered += plan.models[m].throughput_rps;
    }
    EXPECT_DOUBLE_EQ(w.rate_rps, offered);
    // And it simulates: requests of every model arrive and most are served.
    SimulationSpec spec;
    spec.system = "reservation";
    spec.duration = Duration::seconds(3);
    spec.warmup = Duration::milliseconds(500);
    spec.edit_options<PipelineRunOptions>().plan = std::make_shared<const PipelinePlan>(plan);
    const auto result = simulate(imported.scenario, spec);
    const auto total = result.metrics->total();
    EXPECT_GT(total.arrivals, 0u);
    EXPECT_GT(total.on_time, total.arrivals / 2);
  }
  // Not a plan file: refused naming it.
  EXPECT_THROW((void)import_reference_plan(data, data / "plans" / "maf19" / "no_such_plan_v4.json"), Error);
}
