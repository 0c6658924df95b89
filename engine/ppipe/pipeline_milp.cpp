#include "engine/ppipe/pipeline_milp.h"

#include <algorithm>
#include <cmath>
#include <map>

namespace servescope::engine {

PipelineMilp::PipelineMilp(const std::vector<PipelineColumn>& columns, const std::vector<PlannerGpuType>& gpus,
                           const std::vector<double>& weights, const PpipeOptions& options)
    : columns_(columns), weights_(weights), options_(options), start_(WallClock::now()), x_of_model_(weights.size()) {
  // Per column: its throughput x, the whole GPUs h of each partition and, with one column per type
  // sequence, a binary y. A partition's vGPUs are all v of each of its GPUs (MPS splits a GPU
  // evenly, digest §2.5 fix 5), so x ≤ v·X·h stands for the paper's x ≤ X·g, g ≤ v·h.
  std::vector<std::vector<std::pair<int, double>>> per_type(gpus.size());
  std::map<std::pair<int, int>, std::vector<std::pair<int, double>>> per_sequence;
  x_.resize(columns.size());
  h_.resize(columns.size());
  for (std::size_t c = 0; c < columns.size(); ++c) {
    const auto& col = columns[c];
    x_[c] = base_.add_variable(VarKind::Continuous, 0, MilpProblem::kInf, 0);
    x_of_model_[static_cast<std::size_t>(col.model)].push_back(x_[c]);
    int y = -1;
    if (!options.several_configs_per_sequence) {
      y = base_.add_variable(VarKind::Binary, 0, 1, 0);
      per_sequence[{col.model, col.sequence}].emplace_back(y, 1.0);
    }
    for (const auto& part : col.parts) {
      const int nk = gpus[static_cast<std::size_t>(part.type)].count;
      const int hv = base_.add_variable(VarKind::Integer, 0, nk, 0);
      h_[c].push_back(hv);
      base_.add_row({{x_[c], 1.0}, {hv, -per_gpu_rps(part)}}, -MilpProblem::kInf, 0);  // x ≤ v·X·h
      if (y >= 0) base_.add_row({{hv, 1.0}, {y, -static_cast<double>(nk)}}, -MilpProblem::kInf, 0);
      per_type[static_cast<std::size_t>(part.type)].emplace_back(hv, 1.0);
    }
  }
  for (std::size_t k = 0; k < gpus.size(); ++k)
    if (!per_type[k].empty()) base_.add_row(per_type[k], -MilpProblem::kInf, gpus[k].count);
  for (auto& [key, terms] : per_sequence)
    base_.add_row(std::move(terms), -MilpProblem::kInf, 1);
}

MilpProblem PipelineMilp::with_floors(const std::vector<std::optional<double>>& floor_rps) const {
  MilpProblem p = base_;
  for (std::size_t m = 0; m < floor_rps.size(); ++m) {
    if (!floor_rps[m] || *floor_rps[m] <= 0) continue;
    std::vector<std::pair<int, double>> terms;
    for (const int x : x_of_model_[m])
      terms.emplace_back(x, 1.0);
    // A hair below the floor: the floor came out of an earlier solve in floating point.
    p.add_row(std::move(terms), *floor_rps[m] * (1 - 1e-9), MilpProblem::kInf);
  }
  return p;
}

MilpResult PipelineMilp::run(const MilpProblem& problem, bool cuts, std::optional<double> stop_at) {
  MilpOptions mo;
  mo.time_limit_s = options_.time_limit_s - seconds_since(start_);
  mo.relative_gap = options_.mip_gap;
  mo.cancel = options_.cancel;
  mo.stop_at_objective = stop_at;
  // The max-min objective's relaxation spreads z over fractional GPUs; cuts and pseudo-costs take
  // the maf19 cases from up to 10 s to under 1.5 s, while single-model problems (tight already) can
  // slow down 100-fold with cuts (BENCHMARKS.md).
  mo.gomory_cuts = mo.pseudocost_branching = cuts;
  if (mo.time_limit_s <= 0) {
    all_proven_ = false;
    return {};
  }
  auto r = problem.solve(mo);
  if (!solved_once_) {
    first_ = r;
    solved_once_ = true;
  }
  // A question answered by the first good-enough incumbent is answered, not merely feasible.
  const bool answered = stop_at && r.has_solution() && r.objective >= *stop_at;
  if (r.status != MilpStatus::Optimal && !answered) all_proven_ = false;
  return r;
}

LevelAllocation PipelineMilp::allocation_of(const MilpResult& r) const {
  LevelAllocation out;
  out.model_rps.assign(weights_.size(), 0);
  const auto value = [&](int var) { return r.values[static_cast<std::size_t>(var)]; };
  for (std::size_t c = 0; c < columns_.size(); ++c) {
    const auto& parts = columns_[c].parts;
    // GLPK meets x ≤ v·X·h within its feasibility tolerance (about 1e-7 relative), so x can sit
    // a hair above what the rounded GPUs carry: the plan assigns what they carry, and each
    // partition keeps only the GPUs that rate needs (h can exceed them when x is not binding).
    double assigned = value(x_[c]);
    for (std::size_t d = 0; d < parts.size(); ++d)
      assigned = std::min(assigned, per_gpu_rps(parts[d]) * static_cast<double>(std::lround(value(h_[c][d]))));
    if (assigned <= 1e-6) continue;
    ColumnUse use{c, {}, assigned};
    for (const auto& part : parts)
      use.gpus.push_back(gpus_to_carry(assigned, part));
    out.model_rps[static_cast<std::size_t>(columns_[c].model)] += assigned;
    out.uses.push_back(std::move(use));
  }
  return out;
}

std::optional<CommonLevel> PipelineMilp::raise_common(const std::vector<std::optional<double>>& floor_rps) {
  auto p = with_floors(floor_rps);
  std::vector<std::size_t> free;
  for (std::size_t m = 0; m < floor_rps.size(); ++m)
    if (!floor_rps[m]) free.push_back(m);
  if (free.size() == 1) {
    // One model to raise: maximise its rate directly, which keeps the relaxation tight.
    for (const int x : x_of_model_[free[0]])
      p.set_objective(x, 1.0);
    const auto r = run(p, false, std::nullopt);
    if (!r.has_solution()) return std::nullopt;
    return CommonLevel{r.objective / weights_[free[0]], allocation_of(r)};
  }
  const int z = p.add_variable(VarKind::Continuous, 0, MilpProblem::kInf, 1, "z");
  for (const std::size_t m : free) {
    std::vector<std::pair<int, double>> terms;
    for (const int x : x_of_model_[m])
      terms.emplace_back(x, 1.0 / weights_[m]);
    terms.emplace_back(z, -1.0);  // z ≤ Σ x / w
    p.add_row(std::move(terms), 0, MilpProblem::kInf);
  }
  const auto r = run(p, true, std::nullopt);
  if (!r.has_solution()) return std::nullopt;
  return CommonLevel{r.objective, allocation_of(r)};
}

bool PipelineMilp::can_exceed(std::size_t m, const std::vector<double>& floor_rps) {
  auto p = with_floors({floor_rps.begin(), floor_rps.end()});
  for (const int x : x_of_model_[m])
    p.set_objective(x, 1.0);
  // "More" is a relative step above the floor's rounding, not any positive ε.
  const double above = floor_rps[m] * (1 + 1e-6) + 1e-6;
  const auto r = run(p, floor_rps.size() > 1, above);
  return r.has_solution() && r.objective >= above;
}

std::optional<LevelAllocation> PipelineMilp::finish(const std::vector<double>& floor_rps) {
  auto p = with_floors({floor_rps.begin(), floor_rps.end()});
  for (const int x : x_)
    p.set_objective(x, 1.0);
  const auto r = run(p, true, std::nullopt);
  if (!r.has_solution()) return std::nullopt;
  return allocation_of(r);
}

}  // namespace servescope::engine
