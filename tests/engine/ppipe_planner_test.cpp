// PPipe's control plane on constructed inputs (digest §7 T1, T3–T5, T16, T17): pipeline
// enumeration, transfer and margin arithmetic, the batch-forming term, a two-type model whose
// best plan is a low→high pipeline, multi-model max-min and DART-r. Every plan goes through the
// independent checker. The golden FCN plans (T14, T15) are in shared_data/.
#include "engine/ppipe/ppipe_planner.h"

#include <algorithm>
#include <gtest/gtest.h>

#include "engine/ppipe/pipeline_shapes.h"
#include "engine/ppipe/prepartition.h"
#include "model/core/error.h"
#include "tests/support/durations.h"
#include "tests/support/pipeline_plan_checker.h"
#include "tests/support/toy_block_model.h"

using namespace servescope;
using namespace servescope::engine;

namespace {

using ::servescope::test::us;

test::PlanCheckInput check_input(const std::vector<PlannerModel>& models, const std::vector<PlannerGpuType>& gpus,
                                 double margin = 0.4) {
  return {models, gpus, margin, true};
}

}  // namespace

TEST(PpipeT1, PipelineEnumeration) {
  const auto seqs = enumerate_type_sequences(2, 3);
  ASSERT_EQ(seqs.size(), 14u);
  const std::vector<TypeSequence> expect = {{0},       {1},       {0, 0},    {0, 1},    {1, 0},
                                            {1, 1},    {0, 0, 0}, {0, 0, 1}, {0, 1, 0}, {0, 1, 1},
                                            {1, 0, 0}, {1, 0, 1}, {1, 1, 0}, {1, 1, 1}};
  EXPECT_EQ(seqs, expect);
  EXPECT_EQ(enumerate_type_sequences(2, 2).size(), 6u);
  EXPECT_EQ(enumerate_type_sequences(3, 2).size(), 12u);
  EXPECT_EQ(enumerate_type_sequences(4, 2).size(), 20u);
  EXPECT_EQ(enumerate_type_sequences(3, 3).size(), 39u);
  EXPECT_EQ(enumerate_cuts(10, 1).size(), 1u);
  EXPECT_EQ(enumerate_cuts(10, 2).size(), 9u);
  EXPECT_EQ(enumerate_cuts(10, 3).size(), 36u);
  EXPECT_EQ(enumerate_cuts(2, 3).size(), 0u);
}

TEST(PpipeT3, TransferArithmetic) {
  EXPECT_NEAR(transfer_time(1 << 20, 6).to_us(), 1398.1, 0.05);
  EXPECT_NEAR(transfer_time(1 << 20, 10).to_us(), 838.9, 0.05);
  EXPECT_NEAR(transfer_time(3 << 20, 6).to_us(), 4194.3, 0.05);
}

TEST(PpipeT4T5, MarginAndBatchFormingTerm) {
  // One type, one block: the whole model at 10 ms (batch 1) .. 25 ms (batch 4).
  const auto m = test::toy_model("m", {{"V100", {10000}}}, 0);
  const std::vector<PlannerGpuType> gpus = {{"V100", 4, 2, 6}};
  PpipeOptions o;
  o.batch_forming_rate_rps = 686.15;
  const auto plan = plan_ppipe({{&m, us(33278.6)}}, gpus, o);
  EXPECT_NEAR(plan.models[0].planning_slo.to_us(), 19967.6, 1e-6);
  // Batch 2 (15 ms) + E_2 = 1.3/686.15 s = 1894.6 µs fits 19967.6; batch 3 (20 ms) does not.
  ASSERT_EQ(plan.pipelines.size(), 1u);
  EXPECT_EQ(plan.pipelines[0].batch, 2);
  EXPECT_NEAR(plan.pipelines[0].batch_forming.to_us(), 1894.6, 0.05);
  EXPECT_NEAR(plan.models[0].throughput_rps, 4 * 2 / 0.015, 1e-6);
  EXPECT_TRUE(test::check_pipeline_plan(plan, check_input({{&m, us(33278.6)}}, gpus)).empty());
  o.slo_margin = 0.1;
  EXPECT_NEAR(plan_ppipe({{&m, us(33278.6)}}, gpus, o).models[0].planning_slo.to_us(), 29950.6, 1e-6);
}

TEST(Ppipe, LowClassGpusRunTheBlocksTheyAreGoodAt) {
  // High class H: 2 + 2 ms. Low class L: 2.5 ms on block 0 but 20 ms on block 1. SLO 50 ms
  // (planning 30 ms). 2 H and 8 L. Alone, L cannot run the model usefully in time at batch > 1
  // and H is scarce, so the plan sends block 0 through a pool of L and block 1 to H.
  const auto m = test::toy_model("m", {{"H", {2000, 2000}}, {"L", {2500, 20000}}}, 100'000);
  const std::vector<PlannerGpuType> gpus = {{"H", 2, 1, 10}, {"L", 8, 1, 10}};
  const std::vector<PlannerModel> models = {{&m, us(50000)}};
  PpipeOptions o;
  o.batch_forming = false;
  const auto ppipe = plan_ppipe(models, gpus, o);
  const auto np = plan_np(models, gpus, o);
  EXPECT_TRUE(ppipe.solve.proven_optimal);
  EXPECT_EQ(ppipe.solve.status, "optimal");
  EXPECT_GT(ppipe.total_throughput_rps(), np.total_throughput_rps() * 1.2);
  bool low_to_high = false;
  for (const auto& p : ppipe.pipelines)
    if (p.partitions.size() == 2 && p.partitions[0].gpu == "L" && p.partitions[1].gpu == "H") low_to_high = true;
  EXPECT_TRUE(low_to_high);
  EXPECT_EQ(test::check_pipeline_plan(ppipe, check_input(models, gpus)), std::vector<std::string>{});
  EXPECT_EQ(test::check_pipeline_plan(np, check_input(models, gpus)), std::vector<std::string>{});
  // P = 1 PPipe equals NP.
  o.max_partitions = 1;
  o.vgpu_divisors = {1};
  EXPECT_NEAR(plan_ppipe(models, gpus, o).total_throughput_rps(), np.total_throughput_rps(), 1e-6);
}

TEST(PpipeT16, MultiModelMaxMinNormalisedThroughput) {
  const auto a = test::toy_model("a", {{"H", {2000, 2000}}, {"L", {2500, 20000}}}, 100'000);
  const auto b = test::toy_model("b", {{"H", {3000, 1000}}, {"L", {9000, 3000}}}, 50'000);
  const std::vector<PlannerGpuType> gpus = {{"H", 3, 1, 10}, {"L", 9, 1, 10}};
  const std::vector<PlannerModel> models = {{&a, us(50000), 0.25}, {&b, us(60000), 0.75}};
  PpipeOptions o;
  o.batch_forming = false;
  const auto plan = plan_ppipe(models, gpus, o);
  ASSERT_EQ(plan.models.size(), 2u);
  const double z = plan.solve.objective;
  EXPECT_GT(z, 0);
  double binding = 1e300;
  for (const auto& m : plan.models) {
    EXPECT_GE(m.throughput_rps / m.weight, z * (1 - 1e-6)) << m.name;
    binding = std::min(binding, m.throughput_rps / m.weight);
  }
  EXPECT_NEAR(binding, z, 1e-6 * z);
  for (const auto& p : plan.pipelines)
    EXPECT_GE(p.capacity_rps, p.assigned_rps * (1 - 1e-9));
  EXPECT_EQ(test::check_pipeline_plan(plan, check_input(models, gpus)), std::vector<std::string>{});
}

TEST(PpipeT17, DartRReplicatesPairsAndRunsTheLeftoverAlone) {
  const auto m = test::toy_model("m", {{"H", {2000, 2000}}, {"L", {2500, 9000}}}, 100'000);
  const std::vector<PlannerGpuType> gpus = {{"H", 2, 1, 10}, {"L", 6, 1, 10}};
  const std::vector<PlannerModel> models = {{&m, us(50000)}};
  PpipeOptions o;
  o.batch_forming = false;
  const auto plan = plan_dart_r(models, gpus, o);
  EXPECT_EQ(plan.system, "dart-r");
  EXPECT_EQ(test::check_pipeline_plan(plan, check_input(models, gpus)), std::vector<std::string>{});
  // 2 pairs use 2 H + 2 L; the 4 leftover L each run the whole model (11.5 ms at batch 1 fits 30 ms).
  EXPECT_LE(plan.gpus_used("H"), 2);
  EXPECT_EQ(plan.gpus_used("L"), 6);
  for (const auto& p : plan.pipelines)
    for (const auto& part : p.partitions)
      EXPECT_EQ(part.vgpu_divisor, 1) << "DART-r uses no vGPUs";
  // With a whole model too slow on L, the leftover stays idle and the plan says so.
  const auto slow = test::toy_model("slow", {{"H", {2000, 2000}}, {"L", {2500, 40000}}}, 100'000);
  const auto idle = plan_dart_r({{&slow, us(50000)}}, gpus, o);
  EXPECT_LE(idle.gpus_used("L"), 2);
  EXPECT_TRUE(
      std::ranges::any_of(idle.notes, [](const std::string& n) { return n.find("stay idle") != std::string::npos; }));
  EXPECT_THROW(plan_dart_r(models, {{"H", 2, 1, 10}}, o), QueryError);
}

TEST(Ppipe, RefusesBadOptionsWithAReason) {
  const auto m = test::toy_model("m", {{"V100", {10000}}}, 0);
  const std::vector<PlannerGpuType> gpus = {{"V100", 4, 2, 6}};
  PpipeOptions o;
  o.max_partitions = 4;
  EXPECT_THROW(plan_ppipe({{&m, us(30000)}}, gpus, o), QueryError);
  EXPECT_THROW(plan_ppipe({}, gpus), QueryError);
  EXPECT_THROW(plan_ppipe({{&m, us(30000)}}, {}), QueryError);
  // An SLO no configuration meets: an empty plan that says why, not an error.
  const auto none = plan_ppipe({{&m, us(5000)}}, gpus);
  EXPECT_TRUE(none.pipelines.empty());
  EXPECT_EQ(none.solve.status, "infeasible");
  EXPECT_FALSE(none.notes.empty());
}

TEST(PpipeT13, GreedyPrepartitionIntoEqualRuntimeBlocks) {
  EXPECT_EQ(greedy_prepartition({2, 2, 3, 1, 4, 6, 2}, 4), (BlockBoundaries{0, 2, 4, 5, 7}));
  // Exactly N non-empty blocks even when one layer dominates.
  EXPECT_EQ(greedy_prepartition({100, 1, 1, 1}, 3), (BlockBoundaries{0, 1, 2, 4}));
  EXPECT_EQ(greedy_prepartition({1, 1, 1}, 3), (BlockBoundaries{0, 1, 2, 3}));
  EXPECT_THROW(greedy_prepartition({1, 1}, 3), QueryError);
}

TEST(PpipeT13, MinCutPrepartitionPicksTheCheapestBalancedCuts) {
  // Six equal layers on two GPU types; a cut before layer 3 carries 10 bytes, every other 100.
  const std::vector<std::vector<double>> runtime = {{1, 1, 1, 1, 1, 1}, {2, 2, 2, 2, 2, 2}};
  const std::vector<std::int64_t> live = {0, 100, 100, 10, 100, 100, 0};
  const auto two = min_cut_prepartition(runtime, live, 2);
  EXPECT_EQ(two.boundaries, (BlockBoundaries{0, 3, 6}));
  EXPECT_EQ(two.cut_bytes, 10);
  EXPECT_DOUBLE_EQ(two.bounds.first, 0.7);
  // Within ±30 % three blocks must be two layers each, which misses the cheap cut: balance
  // wins over bytes while a rung is feasible.
  const auto three = min_cut_prepartition(runtime, live, 3);
  EXPECT_EQ(three.boundaries, (BlockBoundaries{0, 2, 4, 6}));
  EXPECT_EQ(three.cut_bytes, 200);
  EXPECT_DOUBLE_EQ(three.bounds.first, 0.7);
  // A wider first rung lets it use the cheap cut: {0, 3, 4, 6} or {0, 2, 3, 6}.
  const auto loose = min_cut_prepartition(runtime, live, 3, MinCutOptions{{{0.5, 1.5}}});
  EXPECT_EQ(loose.cut_bytes, 110);
  // Nothing fits when one layer alone is over the widest bound.
  EXPECT_THROW(min_cut_prepartition({{10, 1, 1, 1}}, {0, 1, 1, 1, 0}, 3, MinCutOptions{{{0.7, 1.3}}}), QueryError);
  EXPECT_THROW(min_cut_prepartition(runtime, {0, 1}, 2), QueryError);
}
