// Symphony digest §5 T13: sub-cluster partitioning, constructed so the optimum is known.
#include "engine/symphony/subcluster_partitioner.h"

#include <gtest/gtest.h>

using namespace servescope::engine;

namespace {

// Big A, B (rate 100, memory 2) and small C, D (rate 50, memory 1); two sub-clusters, w = 1.
PartitionProblem four_models(double memory_limit) {
  PartitionProblem p;
  p.models = {{"A", 100, 2, 0}, {"B", 100, 2, 0}, {"C", 50, 1, 0}, {"D", 50, 1, 0}};
  p.subclusters = 2;
  p.memory_limit = memory_limit;
  return p;
}

bool big_with_small(const std::vector<int>& a) {
  return a[0] != a[1] && a[2] != a[3];
}

}  // namespace

TEST(SubclusterPartition, BalancedOptimum) {
  for (double limit : {4.0, 3.0}) {
    const auto r = solve_partition_milp(four_models(limit));
    ASSERT_EQ(r.status, PartitionStatus::Optimal) << limit;
    EXPECT_NEAR(r.objective, 0, 1e-9);
    EXPECT_TRUE(big_with_small(r.assignment));
    const auto [rate_imb, mem_imb] = imbalance_factors(four_models(limit), r.assignment);
    EXPECT_NEAR(rate_imb, 0, 1e-9);
    EXPECT_NEAR(mem_imb, 0, 1e-9);
  }
  // The alternative {A, B} + {C, D} is feasible but scores ΔR + ΔS = 50 + 1.
  const auto alt = evaluate_partition(four_models(4), {0, 0, 1, 1});
  ASSERT_TRUE(alt);
  EXPECT_NEAR(alt->objective, 51, 1e-9);
}

TEST(SubclusterPartition, InfeasibleLimits) {
  EXPECT_EQ(solve_partition_milp(four_models(2.5)).status, PartitionStatus::Infeasible);
  auto p = four_models(4);
  p.rate_limit = 120;
  EXPECT_EQ(solve_partition_milp(p).status, PartitionStatus::Infeasible);
  EXPECT_EQ(solve_partition_heuristic(p).status, PartitionStatus::Infeasible);
}

TEST(SubclusterPartition, DisruptionBudget) {
  auto p = four_models(4);
  p.current = {0, 0, 1, 1};
  p.move_cost = 1;  // every load and every unload
  p.max_move_cost = 0;
  auto r = solve_partition_milp(p);
  ASSERT_EQ(r.status, PartitionStatus::Optimal);
  EXPECT_EQ(r.assignment, p.current);
  p.max_move_cost = 2;  // one model may move
  r = solve_partition_milp(p);
  ASSERT_EQ(r.status, PartitionStatus::Optimal);
  EXPECT_NEAR(r.objective, 51, 1e-9);
  EXPECT_LE(r.move_cost, 2);
  p.max_move_cost = 4;
  r = solve_partition_milp(p);
  ASSERT_EQ(r.status, PartitionStatus::Optimal);
  EXPECT_NEAR(r.objective, 0, 1e-9);
  EXPECT_TRUE(big_with_small(r.assignment));
}

TEST(SubclusterPartition, HeuristicAndRandomFindTheEasyOptimum) {
  const auto h = solve_partition_heuristic(four_models(4));
  EXPECT_EQ(h.status, PartitionStatus::Heuristic);
  EXPECT_NEAR(h.objective, 0, 1e-9);
  const auto rnd = solve_partition_random(four_models(4), 0.01, 3);
  EXPECT_NEAR(rnd.objective, 0, 1e-9);
}

TEST(SubclusterPartition, MilpBeatsRandomOnALargerInstance) {
  PartitionProblem p;
  p.subclusters = 3;
  for (int i = 0; i < 12; ++i)
    p.models.push_back({"m" + std::to_string(i), 10.0 + (i * 37 % 91), 1.0 + (i * 13 % 7), 0.5});
  p.memory_limit = 24;
  const auto milp = solve_partition(p, 5);
  EXPECT_EQ(milp.status, PartitionStatus::Optimal);
  ASSERT_NE(milp.status, PartitionStatus::Infeasible);
  const auto rnd = solve_partition_random(p, 0.2, 1);
  ASSERT_NE(rnd.status, PartitionStatus::Infeasible);
  EXPECT_LE(milp.objective, rnd.objective);
  EXPECT_TRUE(evaluate_partition(p, milp.assignment));
}
