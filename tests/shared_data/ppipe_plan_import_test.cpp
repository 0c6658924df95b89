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

// The three HC4 plans whose partitions hold fractions of V100s (1.5 and 13.5 at 1/2, 11.33 at
// 1/3): with MPS shares as the capacity, all three models of each fit the cluster's 25 V100s
// together and simulate; with whole GPUs per partition, RTMDet's group needed 26.
TEST(PpipePlanImport, TheHc4PlansWithFractionalGpusFitTheirClusterTogether) {
  SERVESCOPE_REQUIRE_SHARED_DATA("PPipe/data/plans/maf19");
  const auto data = shared_data / "PPipe/data";
  int fractional_plans = 0, needed_more_whole = 0;
  for (const auto& file : reference_plan_files(data, "maf19", "v4")) {
    if (file.filename().string().find("_V100-T4_") == std::string::npos) continue;
    const auto imported = import_reference_plan(data, file);
    if (imported.notes.empty()) continue;  // whole GPUs only
    SCOPED_TRACE(file.filename().string());
    ++fractional_plans;
    double v100_shares = 0;
    int whole_v100s = 0;
    for (const auto& p : imported.plan.pipelines)
      for (const auto& part : p.partitions)
        if (part.gpu == "V100") {
          v100_shares += static_cast<double>(part.vgpus) / part.vgpu_divisor;
          whole_v100s += part.gpus;
        }
    EXPECT_LE(v100_shares, 25 + 1e-9);
    needed_more_whole += whole_v100s > 25 ? 1 : 0;
    SimulationSpec spec;
    spec.system = "reservation";
    spec.duration = Duration::seconds(3);
    spec.warmup = Duration::milliseconds(500);
    spec.edit_options<PipelineRunOptions>().plan = std::make_shared<const PipelinePlan>(imported.plan);
    const auto result = simulate(imported.scenario, spec);
    // The simulator's figures, in virtual time from the spec's fixed seed: the same on any machine
    // under any load (no wall clock enters a simulation).
    const auto& models = result.metrics->models();
    ASSERT_EQ(models.size(), 3u);
    for (const auto& m : models) {
      EXPECT_GT(m.arrivals, 0u);
      EXPECT_GT(m.attainment(), 0.9);
    }
  }
  EXPECT_EQ(fractional_plans, 3);
  EXPECT_EQ(needed_more_whole, 1);  // RTMDet's 1.5 + 13.5 V100s: 26 whole ones
}

namespace {

// Simulates `file`'s plan under the artifact's configuration, then `changes` as the command line
// spells them.
std::vector<std::uint64_t> drops_with(const std::filesystem::path& data, const std::filesystem::path& file,
                                      const std::vector<std::pair<std::string, std::string>>& changes) {
  const auto imported = import_reference_plan(data, file);
  SimulationSpec spec;
  spec.system = "reservation";
  spec.duration = Duration::seconds(10);
  spec.seed = 1;
  spec.edit_options<PipelineRunOptions>().plan = std::make_shared<const PipelinePlan>(imported.plan);
  apply_artifact_simulator_options(spec);
  apply_pipeline_options(spec, changes);
  const auto result = simulate(imported.scenario, spec);
  std::vector<std::uint64_t> out;
  for (const auto& m : result.metrics->models())
    out.push_back(m.dropped);
  return out;
}

}  // namespace

// The PPipe artifact's simulator, configured by options alone (artifact_simulator_options: its
// busy-until tables, wake rule, first look, per-pipeline links, GPUs in cluster order, none of
// ServeScope's additions; the uplink-aware pick is the default). A regression pin: the drops per
// model are those of a recorded run of that configuration in ServeScope itself (2026-11-30, the
// commit that added this test: seed 1, 10 s, the three models together); docs/reproduction/ppipe.md
// "Against the artifact's simulator" compares the configuration with the Java simulator. The plan
// is HC2's colorization / GoogLeNet / RepVGG, where the pick, the first look and the placement
// decide.
TEST(PpipePlanImport, TheArtifactsConfigurationDropsWhatItsRecordedRunDropped) {
  SERVESCOPE_REQUIRE_SHARED_DATA("PPipe/data/plans/maf19");
  const auto data = shared_data / "PPipe/data";
  std::filesystem::path file;
  for (const auto& f : reference_plan_files(data, "maf19", "v4"))
    if (f.filename().string().starts_with("colorization") && f.filename().string().find("_L4-T4_") != std::string::npos)
      file = f;
  ASSERT_FALSE(file.empty());
  const auto drops = drops_with(data, file, {});
  EXPECT_EQ(drops, (std::vector<std::uint64_t>{45, 117, 3}));
  // The pick and the first look count on this plan: either changed drops other requests.
  for (const auto& change :
       std::vector<std::pair<std::string, std::string>>{{"uplink-blind", ""}, {"first-look", "0"}}) {
    SCOPED_TRACE(change.first);
    EXPECT_NE(drops_with(data, file, {change}), drops);
  }
  // Placed in cluster order, the plan's L4 senders fill their servers just as the artifact groups
  // them, so the servers' links differ from its links only in the T4 receivers' downlinks. Spread
  // by NIC load, the senders share other uplinks and drop other requests.
  EXPECT_NE(drops_with(data, file, {{"network", "per-server"}, {"placement", "nic-load"}}), drops);
}
