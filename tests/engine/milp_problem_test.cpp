#include "engine/milp/milp_problem.h"

#include <cmath>
#include <cstdint>
#include <gtest/gtest.h>
#include <vector>

using namespace servescope::engine;

TEST(MilpProblem, SolvesASmallIntegerProgramToOptimality) {
  // max 5x + 4y + 3z  s.t. 2x + 3y + z ≤ 5, 4x + y + 2z ≤ 11, 3x + 4y + 2z ≤ 8, x,y,z ∈ ℕ.
  MilpProblem p(Sense::Maximize);
  const int x = p.add_variable(VarKind::Integer, 0, MilpProblem::kInf, 5, "x");
  const int y = p.add_variable(VarKind::Integer, 0, MilpProblem::kInf, 4, "y");
  const int z = p.add_variable(VarKind::Integer, 0, MilpProblem::kInf, 3, "z");
  p.add_row({{x, 2}, {y, 3}, {z, 1}}, -MilpProblem::kInf, 5);
  p.add_row({{x, 4}, {y, 1}, {z, 2}}, -MilpProblem::kInf, 11);
  p.add_row({{x, 3}, {y, 4}, {z, 2}}, -MilpProblem::kInf, 8);
  const auto r = p.solve();
  ASSERT_EQ(r.status, MilpStatus::Optimal);
  EXPECT_DOUBLE_EQ(r.objective, 13);
  EXPECT_DOUBLE_EQ(r.values[0], 2);
  EXPECT_DOUBLE_EQ(r.values[1], 0);
  EXPECT_DOUBLE_EQ(r.values[2], 1);
  EXPECT_DOUBLE_EQ(r.gap, 0);
}

TEST(MilpProblem, BranchesWhenTheRelaxationIsFractional) {
  // max x + y  s.t. 2x + 2y ≤ 3 with binaries: the LP gives 1.5, the integer optimum is 1.
  MilpProblem p(Sense::Maximize);
  const int x = p.add_variable(VarKind::Binary, 0, 1, 1);
  const int y = p.add_variable(VarKind::Binary, 0, 1, 1);
  p.add_row({{x, 2}, {y, 2}}, -MilpProblem::kInf, 3);
  const auto r = p.solve();
  ASSERT_EQ(r.status, MilpStatus::Optimal);
  EXPECT_DOUBLE_EQ(r.objective, 1);
}

// A node limit bounds the work, not the time: the search stops at the same node, with the same
// answer, however busy the machine (a time limit once gave Symphony another partition under load).
TEST(MilpProblem, ANodeLimitStopsTheSearchAtTheSameNodeEveryTime) {
  // A market split (Cornuéjols and Dawande): 30 binaries whose weighted sums must hit half of
  // each of three rows' totals, the misses paid for; known to take branch and bound a long time.
  const auto solve = [] {
    MilpProblem p(Sense::Minimize);
    std::vector<int> x;
    for (int j = 0; j < 30; ++j)
      x.push_back(p.add_variable(VarKind::Binary, 0, 1, 0));
    std::uint32_t lcg = 12345;
    for (int i = 0; i < 3; ++i) {
      std::vector<std::pair<int, double>> row;
      double total = 0;
      for (const auto v : x) {
        lcg = lcg * 1664525u + 1013904223u;
        const double a = (lcg >> 16) % 100;
        row.emplace_back(v, a);
        total += a;
      }
      row.emplace_back(p.add_variable(VarKind::Continuous, 0, MilpProblem::kInf, 1), 1);
      row.emplace_back(p.add_variable(VarKind::Continuous, 0, MilpProblem::kInf, 1), -1);
      const double half = std::floor(total / 2);
      p.add_row(row, half, half);
    }
    MilpOptions options;
    options.node_limit = 50;
    return p.solve(options);
  };
  const auto a = solve(), b = solve();
  ASSERT_EQ(a.status, MilpStatus::Feasible);
  EXPECT_EQ(a.nodes, 51);  // the one past the limit is where it stopped
  EXPECT_EQ(b.status, a.status);
  EXPECT_EQ(b.nodes, a.nodes);
  EXPECT_EQ(b.objective, a.objective);
  EXPECT_EQ(b.values, a.values);
}

TEST(MilpProblem, ReportsInfeasibleAndUnbounded) {
  MilpProblem infeasible(Sense::Minimize);
  const int b = infeasible.add_variable(VarKind::Binary, 0, 1, 1);
  infeasible.add_row({{b, 1}}, 2, MilpProblem::kInf);
  EXPECT_EQ(infeasible.solve().status, MilpStatus::Infeasible);

  MilpProblem unbounded(Sense::Maximize);
  const int x = unbounded.add_variable(VarKind::Continuous, 0, MilpProblem::kInf, 1);
  unbounded.add_row({{x, 1}}, 1, MilpProblem::kInf);
  EXPECT_EQ(unbounded.solve().status, MilpStatus::Unbounded);

  MilpProblem unbounded_int(Sense::Maximize);
  const int n = unbounded_int.add_variable(VarKind::Integer, 0, MilpProblem::kInf, 1);
  unbounded_int.add_row({{n, 1}}, 1, MilpProblem::kInf);
  EXPECT_EQ(unbounded_int.solve().status, MilpStatus::Unbounded);
}

TEST(MilpProblem, RejectsMalformedInput) {
  MilpProblem p(Sense::Minimize);
  EXPECT_THROW(p.add_variable(VarKind::Continuous, 1, 0, 0), std::invalid_argument);
  EXPECT_THROW(p.add_variable(VarKind::Continuous, 0, 1, std::nan("")), std::invalid_argument);
  const int x = p.add_variable(VarKind::Continuous, 0, 1, 1);
  EXPECT_THROW(p.add_row({{x + 1, 1.0}}, 0, 1), std::invalid_argument);
  EXPECT_THROW(p.add_row({{x, std::nan("")}}, 0, 1), std::invalid_argument);
  EXPECT_THROW(p.add_row({{x, 1.0}}, 2, 1), std::invalid_argument);
}

TEST(MilpProblem, CancelledSearchStopsWithoutProvingOptimality) {
  // A knapsack with many similar items needs branching; a pre-set cancel flag stops it early.
  MilpProblem p(Sense::Maximize);
  std::vector<std::pair<int, double>> weights;
  for (int i = 0; i < 40; ++i) {
    const int v = p.add_variable(VarKind::Binary, 0, 1, 10.0 + (i * 7 % 13));
    weights.emplace_back(v, 11.0 + (i * 5 % 17));
  }
  p.add_row(weights, -MilpProblem::kInf, 200.5);
  std::atomic<bool> cancel{true};
  MilpOptions options;
  options.cancel = &cancel;
  const auto r = p.solve(options);
  EXPECT_NE(r.status, MilpStatus::Infeasible);
  const auto full = p.solve();
  ASSERT_EQ(full.status, MilpStatus::Optimal);
  if (r.has_solution()) {
    EXPECT_LE(r.objective, full.objective + 1e-9);
  }
}

TEST(MilpProblem, SolvesOneProblemUnderSeveralObjectives) {
  // x + y ≤ 4, x ≤ 3, y ≤ 2 over the integers: max x is 3, then max y is 2.
  MilpProblem p(Sense::Maximize);
  const int x = p.add_variable(VarKind::Integer, 0, 3, 1);
  const int y = p.add_variable(VarKind::Integer, 0, 2, 0);
  p.add_row({{x, 1}, {y, 1}}, -MilpProblem::kInf, 4);
  EXPECT_DOUBLE_EQ(p.solve().objective, 3);
  p.set_objective(x, 0);
  p.set_objective(y, 1);
  EXPECT_DOUBLE_EQ(p.solve().objective, 2);
  EXPECT_THROW(p.set_objective(7, 1), std::invalid_argument);
}

TEST(MilpProblem, StopsAtTheFirstIncumbentThatAnswersTheQuestion) {
  // A knapsack whose optimum is 28 (weights 5 6 7 8 9 10, values 6 7 8 9 10 11, capacity 25:
  // three items of weight 25, as four weigh at least 26):
  // asked only whether 20 is reachable, the search may stop at any incumbent ≥ 20.
  MilpProblem p(Sense::Maximize);
  std::vector<std::pair<int, double>> weight;
  for (int i = 0; i < 6; ++i)
    weight.emplace_back(p.add_variable(VarKind::Binary, 0, 1, 6 + i), 5 + i);
  p.add_row(weight, -MilpProblem::kInf, 25);
  EXPECT_DOUBLE_EQ(p.solve().objective, 28);
  MilpOptions o;
  o.stop_at_objective = 20;
  const auto r = p.solve(o);
  ASSERT_TRUE(r.has_solution());
  EXPECT_GE(r.objective, 20);
  EXPECT_LE(r.objective, 28);
  o.stop_at_objective = 29;  // beyond the optimum: a full, proven solve
  const auto full = p.solve(o);
  EXPECT_EQ(full.status, MilpStatus::Optimal);
  EXPECT_DOUBLE_EQ(full.objective, 28);
}
