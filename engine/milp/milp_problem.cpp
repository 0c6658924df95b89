#include "engine/milp/milp_problem.h"

#include <glpk.h>

#include <chrono>
#include <cmath>
#include <memory>
#include <stdexcept>

namespace servescope::engine {
namespace {

struct ProbDeleter {
  void operator()(glp_prob* p) const { glp_delete_prob(p); }
};

int bound_type(double lower, double upper) {
  const bool lo = std::isfinite(lower), hi = std::isfinite(upper);
  if (lo && hi) return lower == upper ? GLP_FX : GLP_DB;
  if (lo) return GLP_LO;
  if (hi) return GLP_UP;
  return GLP_FR;
}

struct SearchState {
  const std::atomic<bool>* cancel = nullptr;
  std::optional<double> stop_at;
  bool maximize = true;
  std::optional<std::int64_t> node_limit;
  bool cancelled = false;
  double best_bound = std::nan("");
  std::int64_t nodes = 0;
};

void search_callback(glp_tree* tree, void* info) {
  auto* state = static_cast<SearchState*>(info);
  if (glp_ios_reason(tree) == GLP_ISELECT || glp_ios_reason(tree) == GLP_IBINGO) {
    if (const int node = glp_ios_best_node(tree); node != 0) state->best_bound = glp_ios_node_bound(tree, node);
  }
  if (glp_ios_reason(tree) == GLP_ISELECT && ++state->nodes > state->node_limit.value_or(INT64_MAX))
    glp_ios_terminate(tree);
  if (state->cancel && state->cancel->load(std::memory_order_relaxed)) {
    state->cancelled = true;
    glp_ios_terminate(tree);
  }
  if (state->stop_at && glp_ios_reason(tree) == GLP_IBINGO) {
    const double incumbent = glp_mip_obj_val(glp_ios_get_prob(tree));
    if (state->maximize ? incumbent >= *state->stop_at : incumbent <= *state->stop_at) glp_ios_terminate(tree);
  }
}

}  // namespace

std::string to_string(MilpStatus status) {
  switch (status) {
    case MilpStatus::Optimal:
      return "optimal";
    case MilpStatus::Feasible:
      return "feasible (not proven optimal)";
    case MilpStatus::Infeasible:
      return "infeasible";
    case MilpStatus::Unbounded:
      return "unbounded";
    case MilpStatus::NoSolution:
      return "no solution found";
  }
  return "?";
}

int MilpProblem::add_variable(VarKind kind, double lower, double upper, double objective, std::string name) {
  if (std::isnan(lower) || std::isnan(upper) || !std::isfinite(objective) || lower > upper)
    throw std::invalid_argument("MILP variable '" + name + "': bad bounds or objective");
  if (kind == VarKind::Binary) {
    lower = 0;
    upper = 1;
  }
  vars_.push_back(Var{kind, lower, upper, objective, std::move(name)});
  return static_cast<int>(vars_.size()) - 1;
}

void MilpProblem::add_row(std::vector<std::pair<int, double>> terms, double lower, double upper, std::string name) {
  if (std::isnan(lower) || std::isnan(upper) || lower > upper)
    throw std::invalid_argument("MILP row '" + name + "': bad bounds");
  for (const auto& [var, coef] : terms)
    if (var < 0 || var >= variable_count() || !std::isfinite(coef))
      throw std::invalid_argument("MILP row '" + name + "': bad variable or coefficient");
  rows_.push_back(Row{std::move(terms), lower, upper, std::move(name)});
}

void MilpProblem::set_objective(int var, double coefficient) {
  if (var < 0 || var >= variable_count() || !std::isfinite(coefficient))
    throw std::invalid_argument("MILP objective: bad variable or coefficient");
  vars_[static_cast<std::size_t>(var)].objective = coefficient;
}

MilpResult MilpProblem::solve(const MilpOptions& options) const {
  const auto start = std::chrono::steady_clock::now();
  glp_term_out(GLP_OFF);
  std::unique_ptr<glp_prob, ProbDeleter> lp(glp_create_prob());
  glp_set_obj_dir(lp.get(), sense_ == Sense::Maximize ? GLP_MAX : GLP_MIN);

  bool integral = false;
  if (!vars_.empty()) glp_add_cols(lp.get(), variable_count());
  for (int j = 0; j < variable_count(); ++j) {
    const auto& v = vars_[static_cast<std::size_t>(j)];
    const int col = j + 1;
    glp_set_col_bnds(lp.get(), col, bound_type(v.lower, v.upper), std::isfinite(v.lower) ? v.lower : 0.0,
                     std::isfinite(v.upper) ? v.upper : 0.0);
    glp_set_obj_coef(lp.get(), col, v.objective);
    if (v.kind == VarKind::Binary) glp_set_col_kind(lp.get(), col, GLP_BV);
    if (v.kind == VarKind::Integer) glp_set_col_kind(lp.get(), col, GLP_IV);
    integral = integral || v.kind != VarKind::Continuous;
  }
  if (!rows_.empty()) glp_add_rows(lp.get(), row_count());
  std::vector<int> idx;
  std::vector<double> val;
  for (int i = 0; i < row_count(); ++i) {
    const auto& r = rows_[static_cast<std::size_t>(i)];
    glp_set_row_bnds(lp.get(), i + 1, bound_type(r.lower, r.upper), std::isfinite(r.lower) ? r.lower : 0.0,
                     std::isfinite(r.upper) ? r.upper : 0.0);
    // GLPK arrays are 1-based; element 0 is ignored.
    idx.assign(1, 0);
    val.assign(1, 0.0);
    for (const auto& [var, coef] : r.terms) {
      idx.push_back(var + 1);
      val.push_back(coef);
    }
    glp_set_mat_row(lp.get(), i + 1, static_cast<int>(idx.size()) - 1, idx.data(), val.data());
  }

  MilpResult result;
  const double limit_ms = std::max(1.0, options.time_limit_s * 1000.0);
  const int tm_lim = limit_ms > 2e9 ? INT32_MAX : static_cast<int>(limit_ms);
  SearchState state{options.cancel, options.stop_at_objective, sense_ == Sense::Maximize, options.node_limit};
  int rc = 0;
  int status = 0;
  if (integral) {
    glp_iocp parm;
    glp_init_iocp(&parm);
    parm.presolve = GLP_ON;
    parm.msg_lev = GLP_MSG_OFF;
    parm.tm_lim = tm_lim;
    parm.mip_gap = options.relative_gap;
    parm.cb_func = search_callback;
    parm.cb_info = &state;
    if (options.gomory_cuts) parm.gmi_cuts = GLP_ON;
    if (options.pseudocost_branching) parm.br_tech = GLP_BR_PCH;
    rc = glp_intopt(lp.get(), &parm);
    status = glp_mip_status(lp.get());
    if (rc == GLP_ENOPFS || status == GLP_NOFEAS) {
      result.status = MilpStatus::Infeasible;
    } else if (rc == GLP_ENODFS) {
      // The relaxation has no dual feasible solution: unbounded (GLPK's presolver reports it so).
      result.status = MilpStatus::Unbounded;
    } else if ((status == GLP_OPT && rc == 0) || (rc == GLP_EMIPGAP && (status == GLP_FEAS || status == GLP_OPT))) {
      // Solved, or stopped because the gap fell below relative_gap: optimal within the tolerance
      // asked for.
      result.status = MilpStatus::Optimal;
    } else if (status == GLP_FEAS || status == GLP_OPT) {
      result.status = MilpStatus::Feasible;
    } else {
      result.status = MilpStatus::NoSolution;
    }
    if (result.has_solution()) {
      result.objective = glp_mip_obj_val(lp.get());
      for (int j = 1; j <= variable_count(); ++j)
        result.values.push_back(glp_mip_col_val(lp.get(), j));
    }
  } else {
    glp_smcp parm;
    glp_init_smcp(&parm);
    parm.presolve = GLP_ON;
    parm.msg_lev = GLP_MSG_OFF;
    parm.tm_lim = tm_lim;
    rc = glp_simplex(lp.get(), &parm);
    status = glp_get_status(lp.get());
    if (rc == GLP_ENOPFS || status == GLP_NOFEAS) {
      result.status = MilpStatus::Infeasible;
    } else if (rc == GLP_ENODFS || status == GLP_UNBND) {
      result.status = MilpStatus::Unbounded;
    } else if (status == GLP_OPT) {
      result.status = MilpStatus::Optimal;
    } else if (status == GLP_FEAS) {
      result.status = MilpStatus::Feasible;
    }
    if (result.has_solution()) {
      result.objective = glp_get_obj_val(lp.get());
      for (int j = 1; j <= variable_count(); ++j)
        result.values.push_back(glp_get_col_prim(lp.get(), j));
    }
  }
  if (result.has_solution()) {
    if (result.status == MilpStatus::Optimal || std::isnan(state.best_bound)) {
      result.best_bound = result.objective;
    } else {
      result.best_bound = state.best_bound;
    }
    const double denom = std::max(1e-10, std::fabs(result.objective));
    result.gap = std::fabs(result.best_bound - result.objective) / denom;
  }
  result.solve_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  result.nodes = state.nodes;
  return result;
}

void release_solver_thread() {
  glp_free_env();
}

}  // namespace servescope::engine
