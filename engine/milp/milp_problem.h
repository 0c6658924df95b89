// A small builder over GLPK's MILP solver, shared by the planners that solve integer programs
// (PPipe's control plane, seed 000 §2.6; Symphony's sub-cluster partitioning, seed 002 §2.9).
// It owns no GLPK state between solves, so problems can be built on any thread, and it reports
// what a user needs to trust an answer: status, objective, best bound, gap and time.
#pragma once

#include <atomic>
#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace servescope::engine {

enum class VarKind { Continuous, Integer, Binary };
enum class Sense { Maximize, Minimize };

struct MilpOptions {
  double time_limit_s = 60;
  double relative_gap = 1e-6;                 // stop when (bound − incumbent)/|incumbent| is below this
  const std::atomic<bool>* cancel = nullptr;  // polled during branch and bound
  // GLPK's Gomory mixed-integer cuts and pseudo-cost branching: they tighten weak relaxations
  // (PPipe's max-min objective) but can slow problems whose relaxation is already tight.
  bool gomory_cuts = false;
  bool pseudocost_branching = false;
  // Stop at the first incumbent at least this good (≥ when maximising, ≤ when minimising): for
  // questions like "can this model get more than r?", where any such solution answers yes. The
  // status is then Feasible unless the search had already closed.
  std::optional<double> stop_at_objective;
  // Stop after this many branch-and-bound subproblems: unlike the time limit, a bound on the work
  // that gives the same answer on a busy machine as on an idle one (status Feasible when it stops
  // the search before the gap closes).
  std::optional<std::int64_t> node_limit;
};

enum class MilpStatus {
  Optimal,     // proven within relative_gap
  Feasible,    // stopped (time, cancel) with an incumbent
  Infeasible,  // proven: no integer solution
  Unbounded,
  NoSolution,  // stopped before finding an incumbent
};
std::string to_string(MilpStatus status);

struct MilpResult {
  MilpStatus status = MilpStatus::NoSolution;
  double objective = 0;
  double best_bound = 0;  // from the search tree; equals objective when optimal
  double gap = 0;         // relative, as GLPK defines it
  double solve_seconds = 0;
  std::int64_t nodes = 0;      // branch-and-bound subproblems the search selected
  std::vector<double> values;  // one per variable, when there is a solution
  bool has_solution() const { return status == MilpStatus::Optimal || status == MilpStatus::Feasible; }
};

class MilpProblem {
 public:
  static constexpr double kInf = std::numeric_limits<double>::infinity();

  explicit MilpProblem(Sense sense) : sense_(sense) {}

  // Returns the variable's index. Bounds may be ±kInf; binaries ignore them.
  int add_variable(VarKind kind, double lower, double upper, double objective, std::string name = {});
  // lower ≤ Σ coefficient·x ≤ upper; either bound may be infinite.
  void add_row(std::vector<std::pair<int, double>> terms, double lower, double upper, std::string name = {});

  // Replaces a variable's objective coefficient: one problem, several objectives in turn.
  void set_objective(int var, double coefficient);

  int variable_count() const { return static_cast<int>(vars_.size()); }
  int row_count() const { return static_cast<int>(rows_.size()); }

  MilpResult solve(const MilpOptions& options = {}) const;

 private:
  struct Var {
    VarKind kind;
    double lower, upper, objective;
    std::string name;
  };
  struct Row {
    std::vector<std::pair<int, double>> terms;
    double lower, upper;
    std::string name;
  };
  Sense sense_;
  std::vector<Var> vars_;
  std::vector<Row> rows_;
};

// GLPK keeps its environment per thread. A worker thread that solved MILPs calls this before it
// ends (with no problem of its own left), or the environment outlives the thread.
void release_solver_thread();

}  // namespace servescope::engine
