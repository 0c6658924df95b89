#include "engine/ppipe/pipeline_frontier.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <stdexcept>

namespace servescope::engine {
namespace {

constexpr std::int32_t kUnreachable = std::numeric_limits<std::int32_t>::max() / 4;

// A rate meets a demand up to floating-point noise from the sums that made either.
bool meets(double rps, double demand_rps) {
  return rps >= demand_rps - 1e-9 * std::max(1.0, demand_rps);
}

bool cancelled_by(const std::atomic<bool>* cancel) {
  return cancel && cancel->load(std::memory_order_relaxed);
}

}  // namespace

FrontierSearch::FrontierSearch(const std::vector<PipelineColumn>& columns, const std::vector<PlannerGpuType>& gpus,
                               const std::vector<double>& weights, bool one_column_per_sequence,
                               const std::atomic<bool>* cancel)
    : columns_(columns), weights_(weights), cancel_(cancel) {
  if (gpus.size() > kMaxTypes) throw std::logic_error("FrontierSearch: more than three GPU types");
  for (std::size_t k = 0; k < gpus.size(); ++k) {
    caps_[k] = gpus[k].count;
    dims_[k] = static_cast<std::size_t>(gpus[k].count) + 1;
  }
  states_ = dims_[0] * dims_[1] * dims_[2];
  // Groups in column order, so that the search and its ties are deterministic.
  std::map<std::pair<int, int>, std::vector<std::size_t>> by_sequence;
  models_.resize(weights.size());
  for (std::size_t c = 0; c < columns.size(); ++c) {
    if (one_column_per_sequence) {
      by_sequence[{columns[c].model, columns[c].sequence}].push_back(c);
      continue;
    }
    Group g;
    g.options = efficient_options({c});
    if (!g.options.empty()) models_[static_cast<std::size_t>(columns[c].model)].groups.push_back(std::move(g));
  }
  for (const auto& [key, members] : by_sequence) {
    Group g;
    g.options = efficient_options(members);
    if (!g.options.empty()) models_[static_cast<std::size_t>(key.first)].groups.push_back(std::move(g));
  }
  for (const auto& m : models_)
    for (const auto& g : m.groups)
      work_ += static_cast<double>(g.options.size()) * static_cast<double>(states_);
}

double FrontierSearch::vectors(const std::vector<PlannerGpuType>& gpus) {
  double n = 1;
  for (const auto& g : gpus)
    n *= static_cast<double>(g.count) + 1;
  return n;
}

// A column's pool sizes worth considering: for each rate one of its partitions reaches with some
// number of GPUs, the fewest GPUs every other partition needs to keep up. Across the group's
// columns, only the sizes no other dominates (fewer or equal GPUs of every type, at least the
// rate) are kept: the Pareto set of (GPU vector, rate).
std::vector<FrontierSearch::Option> FrontierSearch::efficient_options(const std::vector<std::size_t>& group) const {
  std::vector<Option> raw;
  std::vector<double> best(states_, 0);
  std::vector<std::int32_t> arg(states_, -1);
  for (const std::size_t c : group) {
    const auto& parts = columns_[c].parts;
    if (std::ranges::any_of(parts, [](const ColumnPart& p) { return !(per_gpu_rps(p) > 0); })) continue;
    for (const auto& lead : parts)
      for (std::int32_t h = 1; h <= caps_[static_cast<std::size_t>(lead.type)]; ++h) {
        const double target = per_gpu_rps(lead) * h;
        Option o;
        o.column = c;
        o.rps = std::numeric_limits<double>::infinity();
        bool fits = true;
        for (const auto& p : parts) {
          const std::int32_t need = gpus_to_carry(target, p);
          o.gpus.push_back(need);
          auto& used = o.usage[static_cast<std::size_t>(p.type)];
          used += need;
          fits = fits && used <= caps_[static_cast<std::size_t>(p.type)];
          o.rps = std::min(o.rps, per_gpu_rps(p) * need);
        }
        if (!fits) continue;
        const auto s = state(o.usage);
        if (o.rps > best[s]) {
          best[s] = o.rps;
          arg[s] = static_cast<std::int32_t>(raw.size());
        }
        raw.push_back(std::move(o));
      }
  }
  // closure[s]: the best rate on at most the GPUs of state s. A state is efficient when its own
  // option beats every state one GPU smaller.
  std::vector<double> closure(states_, 0);
  std::vector<Option> out;
  GpuVector a{};
  for (a[0] = 0; a[0] <= caps_[0]; ++a[0])
    for (a[1] = 0; a[1] <= caps_[1]; ++a[1])
      for (a[2] = 0; a[2] <= caps_[2]; ++a[2]) {
        const auto s = state(a);
        double below = 0;
        for (std::size_t k = 0; k < 3; ++k)
          if (a[k] > 0) {
            auto b = a;
            --b[k];
            below = std::max(below, closure[state(b)]);
          }
        closure[s] = std::max(below, best[s]);
        if (arg[s] >= 0 && best[s] > below) out.push_back(raw[static_cast<std::size_t>(arg[s])]);
      }
  return out;
}

std::uint64_t FrontierSearch::memory_bytes() const {
  std::uint64_t tables = 0;
  for (const auto& m : models_)
    tables += 2 + m.groups.size();  // F, its sorted values, a choice per group
  return tables * states_ * sizeof(double);
}

bool FrontierSearch::build() {
  for (auto& m : models_) {
    if (cancelled_by(cancel_)) {
      cancelled_ = true;
      return false;
    }
    build_model(m);
  }
  return true;
}

// The group knapsack: F after group g is the best of F before it and, for each option of g that
// fits, F before it on the GPUs the option leaves plus the option's rate.
void FrontierSearch::build_model(ModelFrontier& f) {
  std::vector<double> before(states_, 0);
  for (auto& g : f.groups) {
    std::vector<double> after = before;
    g.choice.assign(states_, -1);
    for (std::size_t o = 0; o < g.options.size(); ++o) {
      const auto& option = g.options[o];
      const auto& u = option.usage;
      GpuVector a{};
      for (a[0] = u[0]; a[0] <= caps_[0]; ++a[0])
        for (a[1] = u[1]; a[1] <= caps_[1]; ++a[1]) {
          a[2] = u[2];
          auto to = state(a);
          auto from = state({a[0] - u[0], a[1] - u[1], 0});
          for (; a[2] <= caps_[2]; ++a[2], ++to, ++from) {
            const double rate = before[from] + option.rps;
            if (rate > after[to]) {
              after[to] = rate;
              g.choice[to] = static_cast<std::int32_t>(o);
            }
          }
        }
    }
    before = std::move(after);
  }
  f.best = std::move(before);
  f.values = f.best;
  std::ranges::sort(f.values);
  f.values.erase(std::unique(f.values.begin(), f.values.end()), f.values.end());
}

std::optional<std::vector<FrontierSearch::GpuVector>> FrontierSearch::fit(const std::vector<double>& demand_rps) {
  ++checks_;
  const std::size_t plane = dims_[0] * dims_[1];
  // fewest[n0·d1 + n1]: the fewest GPUs of the third type the models so far need together when
  // they have n0 and n1 of the first two; `corner_of` keeps, per model, the model's own vector
  // that reached it.
  std::vector<std::int32_t> fewest(plane, 0), next(plane);
  std::vector<std::vector<GpuVector>> corners(models_.size());
  std::vector<std::vector<std::int32_t>> corner_of(models_.size());
  for (std::size_t m = 0; m < models_.size(); ++m) {
    const auto& f = models_[m];
    const double demand = demand_rps[m];
    // need[b0·d1 + b1]: the fewest third-type GPUs model m needs beside b0 and b1 of the others.
    std::vector<std::int32_t> need(plane, kUnreachable);
    for (std::int32_t b0 = 0; b0 <= caps_[0]; ++b0)
      for (std::int32_t b1 = 0; b1 <= caps_[1]; ++b1) {
        const auto top = state({b0, b1, caps_[2]});
        if (!meets(f.best[top], demand)) continue;
        std::int32_t lo = 0, hi = caps_[2];  // F grows with every coordinate
        while (lo < hi) {
          const std::int32_t mid = (lo + hi) / 2;
          if (meets(f.best[state({b0, b1, mid})], demand))
            hi = mid;
          else
            lo = mid + 1;
        }
        need[static_cast<std::size_t>(b0) * dims_[1] + static_cast<std::size_t>(b1)] = lo;
      }
    for (std::int32_t b0 = 0; b0 <= caps_[0]; ++b0)
      for (std::int32_t b1 = 0; b1 <= caps_[1]; ++b1) {
        const auto here = need[static_cast<std::size_t>(b0) * dims_[1] + static_cast<std::size_t>(b1)];
        if (here == kUnreachable) continue;
        if (b0 > 0 && need[static_cast<std::size_t>(b0 - 1) * dims_[1] + static_cast<std::size_t>(b1)] <= here)
          continue;
        if (b1 > 0 && need[static_cast<std::size_t>(b0) * dims_[1] + static_cast<std::size_t>(b1 - 1)] <= here)
          continue;
        corners[m].push_back({b0, b1, here});
      }
    if (corners[m].empty()) return std::nullopt;
    std::ranges::fill(next, kUnreachable);
    corner_of[m].assign(plane, -1);
    for (std::size_t c = 0; c < corners[m].size(); ++c) {
      const auto& b = corners[m][c];
      for (std::int32_t n0 = b[0]; n0 <= caps_[0]; ++n0)
        for (std::int32_t n1 = b[1]; n1 <= caps_[1]; ++n1) {
          const auto to = static_cast<std::size_t>(n0) * dims_[1] + static_cast<std::size_t>(n1);
          const auto from = static_cast<std::size_t>(n0 - b[0]) * dims_[1] + static_cast<std::size_t>(n1 - b[1]);
          const std::int32_t total = fewest[from] + b[2];
          if (total < next[to] && total <= caps_[2]) {
            next[to] = total;
            corner_of[m][to] = static_cast<std::int32_t>(c);
          }
        }
    }
    std::swap(fewest, next);
  }
  std::size_t at = plane - 1;  // all of the first two types
  if (fewest[at] > caps_[2]) return std::nullopt;
  std::vector<GpuVector> out(models_.size());
  for (std::size_t m = models_.size(); m-- > 0;) {
    const auto& b = corners[m][static_cast<std::size_t>(corner_of[m][at])];
    out[m] = b;
    const auto n0 = at / dims_[1], n1 = at % dims_[1];
    at = (n0 - static_cast<std::size_t>(b[0])) * dims_[1] + (n1 - static_cast<std::size_t>(b[1]));
  }
  return out;
}

LevelAllocation FrontierSearch::allocation_of(const std::vector<GpuVector>& vectors) const {
  LevelAllocation out;
  out.model_rps.assign(models_.size(), 0);
  for (std::size_t m = 0; m < models_.size(); ++m) {
    auto a = vectors[m];
    const auto& groups = models_[m].groups;
    for (std::size_t g = groups.size(); g-- > 0;) {
      const auto o = groups[g].choice[state(a)];
      if (o < 0) continue;
      const auto& option = groups[g].options[static_cast<std::size_t>(o)];
      out.uses.push_back({option.column, option.gpus, option.rps});
      out.model_rps[m] += option.rps;
      for (std::size_t k = 0; k < 3; ++k)
        a[k] -= option.usage[k];
    }
  }
  std::ranges::sort(out.uses, {}, &ColumnUse::column);
  return out;
}

std::optional<double> FrontierSearch::next_value(std::size_t m, double rps) const {
  const auto& v = models_[m].values;
  const auto it = std::ranges::upper_bound(v, rps + 1e-9 * std::max(1.0, rps));
  if (it == v.end()) return std::nullopt;
  return *it;
}

std::optional<CommonLevel> FrontierSearch::raise_common(const std::vector<std::optional<double>>& floor_rps) {
  // The optimum z is some free model's frontier value over its weight: the one it is held by.
  std::vector<double> candidates;
  double ceiling = std::numeric_limits<double>::infinity();
  for (std::size_t m = 0; m < models_.size(); ++m) {
    if (floor_rps[m]) continue;
    for (const double v : models_[m].values)
      candidates.push_back(v / weights_[m]);
    ceiling = std::min(ceiling, models_[m].values.back() / weights_[m]);
  }
  std::erase_if(candidates, [&](double z) { return z > ceiling; });
  std::ranges::sort(candidates);
  candidates.erase(std::unique(candidates.begin(), candidates.end()), candidates.end());
  const auto demands = [&](double z) {
    std::vector<double> d(models_.size());
    for (std::size_t m = 0; m < models_.size(); ++m)
      d[m] = floor_rps[m] ? *floor_rps[m] : z * weights_[m];
    return d;
  };
  auto best = fit(demands(0));
  if (!best) return std::nullopt;  // the floors themselves do not fit: a caller's error
  double level = 0;
  // Feasibility falls as z rises: the largest candidate that fits.
  std::size_t lo = 0, hi = candidates.size();  // candidates[lo − 1] fits, candidates[hi] does not
  while (lo < hi) {
    if (cancelled_by(cancel_)) {
      cancelled_ = true;
      return std::nullopt;
    }
    const std::size_t mid = (lo + hi) / 2;
    if (auto found = fit(demands(candidates[mid]))) {
      best = std::move(found);
      level = candidates[mid];
      lo = mid + 1;
    } else {
      hi = mid;
    }
  }
  return CommonLevel{level, allocation_of(*best)};
}

bool FrontierSearch::can_exceed(std::size_t m, const std::vector<double>& floor_rps) {
  const auto above = next_value(m, floor_rps[m]);
  if (!above) return false;
  auto demand = floor_rps;
  demand[m] = *above;
  return fit(demand).has_value();
}

// Raises each model in turn as far as the others' floors allow. Lexicographic max-min only calls
// it when a stage held a model that could still rise alone.
std::optional<LevelAllocation> FrontierSearch::finish(const std::vector<double>& floor_rps) {
  auto demand = floor_rps;
  auto best = fit(demand);
  if (!best) return std::nullopt;
  for (std::size_t m = 0; m < models_.size(); ++m) {
    const auto& v = models_[m].values;
    auto lo = static_cast<std::size_t>(std::ranges::upper_bound(v, demand[m]) - v.begin());
    auto hi = v.size();
    while (lo < hi) {
      const std::size_t mid = (lo + hi) / 2;
      auto trial = demand;
      trial[m] = v[mid];
      if (auto found = fit(trial)) {
        best = std::move(found);
        demand = trial;
        lo = mid + 1;
      } else {
        hi = mid;
      }
    }
  }
  return allocation_of(*best);
}

}  // namespace servescope::engine
