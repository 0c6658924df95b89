// Where a pipeline plan's vGPUs land (gpu_placement.h) and which NICs they use
// (network_layout.h; issue 49): MPS shares as the capacity, partitions spread so no NIC carries
// more than it must, and the PPipe artifact's per-pipeline links as an option.
#include <gtest/gtest.h>
#include <set>

#include "engine/ppipe/network_layout.h"
#include "engine/ppipe/pipeline_deployment.h"
#include "engine/ppipe/pipeline_probe.h"
#include "model/core/error.h"
#include "model/io/document.h"
#include "tests/support/pipeline_fixture.h"
#include "tests/support/test_support.h"

using namespace servescope;
using namespace servescope::engine;

namespace {

// `servers` servers of `per_server` V100s each, on 8 Gbps NICs.
std::vector<PhysicalGpu> v100s(int servers, int per_server) {
  std::vector<PhysicalGpu> out;
  for (int s = 0; s < servers; ++s)
    for (int g = 0; g < per_server; ++g)
      out.push_back({"s" + std::to_string(s) + "/gpu" + std::to_string(g), "V100", static_cast<std::uint32_t>(s)});
  return out;
}

PlannedPartition partition(BlockRange blocks, int divisor, int vgpus) {
  PlannedPartition p;
  p.gpu = "V100";
  p.vgpu_divisor = divisor;
  p.blocks = blocks;
  p.vgpus = vgpus;
  p.gpus = (vgpus + divisor - 1) / divisor;
  return p;
}

// A plan of one pipeline of model "seg" at batch 1 with these partitions, carrying `rps`.
PipelinePlan one_pipeline(std::vector<PlannedPartition> partitions, double rps = 0) {
  PlannedPipeline p;
  p.model = "seg";
  p.batch = 1;
  p.assigned_rps = rps;
  p.partitions = std::move(partitions);
  PipelinePlan plan;
  plan.pipelines = {p};
  return plan;
}

struct Fixture {
  test::TempDir dir;
  Scenario scenario = load_scenario(dir.write("s.json", test::kPipelineScenarioJson));
};

std::vector<std::uint32_t> servers_of(const PipelineDeployment& d, const DeployedStage& stage) {
  std::vector<std::uint32_t> out;
  for (const auto g : stage.pool)
    out.push_back(d.slots[g].server);
  return out;
}

}  // namespace

TEST(PipelinePlacement, PartitionsSpreadSoSendersSitBesideReceivers) {
  Fixture f;
  auto plan = one_pipeline({partition({0, 2}, 1, 2), partition({2, 4}, 1, 2)}, 100);
  const std::vector<LinkSpeed> nics(2, LinkSpeed{8, 8});
  const auto d = deploy_pipeline_plan(plan, {"seg"}, v100s(2, 2), nics, f.scenario.profiles);
  // In cluster order both senders would share server 0's uplink and both receivers server 1's
  // downlink; spread, each server's NIC carries one of each, half the load per link.
  EXPECT_EQ(servers_of(d, d.pipelines[0].stages[0]), (std::vector<std::uint32_t>{0, 1}));
  EXPECT_EQ(servers_of(d, d.pipelines[0].stages[1]), (std::vector<std::uint32_t>{0, 1}));

  // Asked for the artifact's placement, servers fill in turn: the senders on server 0.
  const auto in_order =
      deploy_pipeline_plan(plan, {"seg"}, v100s(2, 2), nics, f.scenario.profiles, GpuPlacementRule::ClusterOrder);
  EXPECT_EQ(servers_of(in_order, in_order.pipelines[0].stages[0]), (std::vector<std::uint32_t>{0, 0}));
  EXPECT_EQ(servers_of(in_order, in_order.pipelines[0].stages[1]), (std::vector<std::uint32_t>{1, 1}));

  // A partition that moves no feature maps fills servers in cluster order.
  plan.pipelines[0].partitions = {partition({0, 4}, 1, 3)};
  const auto whole = deploy_pipeline_plan(plan, {"seg"}, v100s(2, 2), nics, f.scenario.profiles);
  EXPECT_EQ(servers_of(whole, whole.pipelines[0].stages[0]), (std::vector<std::uint32_t>{0, 0, 1}));
}

TEST(PipelinePlacement, MpsSharesNotWholeGpusAreTheCapacity) {
  Fixture f;
  // Two partitions of 1.5 V100s at 1/2, as the PPipe authors' plans have them: three GPUs, the
  // middle one holding a half of each. Whole GPUs per partition would need four.
  auto plan = one_pipeline({partition({0, 2}, 2, 3), partition({2, 4}, 2, 3)});
  const std::vector<LinkSpeed> nic(1, LinkSpeed{8, 8});
  const auto d = deploy_pipeline_plan(plan, {"seg"}, v100s(1, 3), nic, f.scenario.profiles);
  std::vector<std::uint32_t> physical;
  for (const auto& stage : d.pipelines[0].stages)
    for (const auto g : stage.pool)
      physical.push_back(d.slot_physical[g]);
  EXPECT_EQ(physical, (std::vector<std::uint32_t>{0, 0, 1, 1, 2, 2}));
  // Each slot's name tells the halves of the shared GPU apart.
  EXPECT_EQ(d.slots[d.pipelines[0].stages[0].pool[2]].name, "s0/gpu1/v0");
  EXPECT_EQ(d.slots[d.pipelines[0].stages[1].pool[0]].name, "s0/gpu1/v1");
  EXPECT_EQ(d.slots.size(), 6u);  // no idle GPU left

  // Three and a half GPUs' worth of shares do not fit three, and the refusal counts shares.
  plan.pipelines[0].partitions[1] = partition({2, 4}, 2, 4);
  try {
    (void)deploy_pipeline_plan(plan, {"seg"}, v100s(1, 3), nic, f.scenario.profiles);
    FAIL() << "expected a refusal";
  } catch (const QueryError& e) {
    EXPECT_STREQ(e.what(), "the plan needs 3.5 V100 GPUs; the cluster has 3");
  }
}

// vGPUs of different sizes on the same GPUs: a share goes where it divides what is free (a half
// beside a half, a third beside thirds) before a fresh GPU, and a fresh GPU before a piece that
// would leave a share nobody fits. In arrival order the halves and thirds would strand a sixth on
// each GPU and the last third would not fit.
TEST(PipelinePlacement, SharesOfDifferentSizesPackWithoutStrandingPieces) {
  std::string json = test::kPipelineScenarioJson;
  const std::string p4 = R"({"gpu": "P4", "share": "1")";
  json.replace(json.find(p4), 0,
               R"({"gpu": "V100", "share": "1/3", "latency_us": [[2000, 3200, 4400, 5600], [3000, 4800, 6600, 8400],
                   [2400, 3800, 5200, 6600], [1600, 2600, 3600, 4600]]}, )");
  test::TempDir dir;
  const auto scenario = load_scenario(dir.write("s.json", json));
  PipelinePlan plan;
  for (const int divisor : {2, 3, 2, 3, 3})
    plan.pipelines.push_back(one_pipeline({partition({0, 4}, divisor, 1)}).pipelines[0]);
  const std::vector<LinkSpeed> nic(1, LinkSpeed{8, 8});
  const auto d = deploy_pipeline_plan(plan, {"seg"}, v100s(1, 2), nic, scenario.profiles);
  std::vector<std::uint32_t> physical;
  for (const auto& p : d.pipelines)
    physical.push_back(d.slot_physical[p.stages[0].pool[0]]);
  EXPECT_EQ(physical, (std::vector<std::uint32_t>{0, 1, 0, 1, 1}));
}

TEST(NetworkLayout, TheArtifactsLinksArePerPipelineAndPerFinalStageVgpu) {
  Fixture f;
  const auto plan = one_pipeline({partition({0, 2}, 1, 4), partition({2, 4}, 1, 4)});
  const std::vector<LinkSpeed> nics(4, LinkSpeed{8, 8});
  auto d = deploy_pipeline_plan(plan, {"seg"}, v100s(4, 2), nics, f.scenario.profiles);
  const auto& first = d.pipelines[0].stages[0].pool;
  const auto& last = d.pipelines[0].stages[1].pool;
  // Per server (the default): a slot's NIC is its server's.
  for (std::uint32_t g = 0; g < d.slots.size(); ++g)
    EXPECT_EQ(d.nic_of(g), d.slots[g].server);

  apply_network_layout(d, NetworkLayout::Artifact);
  // Senders share a NIC per two GPUs (two V100s per server), in pool order; every receiver has
  // its own, so the two transfers into one server no longer queue for its downlink.
  EXPECT_EQ(d.nic_of(first[0]), d.nic_of(first[1]));
  EXPECT_EQ(d.nic_of(first[2]), d.nic_of(first[3]));
  EXPECT_NE(d.nic_of(first[0]), d.nic_of(first[2]));
  std::set<std::uint32_t> receivers;
  for (const auto g : last)
    receivers.insert(d.nic_of(g));
  EXPECT_EQ(receivers.size(), last.size());
  EXPECT_EQ(d.nic_count(), 2u + last.size());
  EXPECT_EQ(d.network_links().server_of(last[1]), d.nic_of(last[1]));

  // The prober reserves on those links: a transfer into one receiver leaves another's free.
  ReservationTable table(PipelineProber::resource_count(d), ReservationMode::GapFilling);
  PipelineProber prober(d, table);
  table.reserve(prober.downlink_of(last[0]), Time(), Duration::milliseconds(5));
  EXPECT_EQ(table.busy_until(prober.downlink_of(last[1])), kMinusInfinity);
  EXPECT_EQ(table.busy_until(prober.downlink_of(last[0])), Time() + Duration::milliseconds(5));

  apply_network_layout(d, NetworkLayout::PerServer);
  EXPECT_TRUE(d.nics.empty());
  EXPECT_EQ(d.nic_of(last[1]), d.slots[last[1]].server);
}
