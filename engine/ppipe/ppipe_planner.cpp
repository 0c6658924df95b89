#include "engine/ppipe/ppipe_planner.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <set>

#include "engine/milp/milp_problem.h"
#include "engine/ppipe/pipeline_milp.h"
#include "engine/ppipe/pipeline_shapes.h"
#include "model/core/error.h"

namespace servescope::engine {
namespace {

// Latency of blocks [i, j) for one (GPU type, divisor, batch), from prefix sums over blocks.
struct LatencyTable {
  int divisor = 1;
  int min_batch = 1, max_batch = 0;
  std::vector<std::vector<Duration>> prefix;  // [batch − min_batch][block boundary]
  Duration range(int batch, int i, int j) const {
    const auto& p = prefix[static_cast<std::size_t>(batch - min_batch)];
    return p[static_cast<std::size_t>(j)] - p[static_cast<std::size_t>(i)];
  }
};

// Everything the columns of one model need, per GPU type.
struct ModelTables {
  std::vector<std::vector<LatencyTable>> by_type;  // [type] one per allowed divisor
};

bool allowed(const std::vector<int>& list, int value) {
  return list.empty() || std::ranges::find(list, value) != list.end();
}

ModelTables build_tables(const ModelProfile& profile, const std::vector<PlannerGpuType>& gpus,
                         const PpipeOptions& options) {
  ModelTables t;
  t.by_type.resize(gpus.size());
  const int n = profile.blocks();
  for (std::size_t k = 0; k < gpus.size(); ++k) {
    std::set<int> divisors;
    for (const auto& [gpu, share] : profile.configurations())
      if (gpu == gpus[k].gpu)
        if (const auto v = share.mps_divisor(); v && allowed(options.vgpu_divisors, *v)) divisors.insert(*v);
    for (const int v : divisors) {
      LatencyTable table;
      table.divisor = v;
      table.min_batch = profile.min_batch(gpus[k].gpu, GpuShare::mps(v));
      table.max_batch = profile.max_batch(gpus[k].gpu, GpuShare::mps(v));
      for (int b = table.min_batch; b <= table.max_batch; ++b) {
        std::vector<Duration> prefix(static_cast<std::size_t>(n) + 1);
        if (allowed(options.batch_sizes, b))
          for (int i = 0; i < n; ++i)
            prefix[static_cast<std::size_t>(i) + 1] =
                prefix[static_cast<std::size_t>(i)] +
                profile.latency({gpus[k].gpu, GpuShare::mps(v), b, BlockRange{i, i + 1}});
        table.prefix.push_back(std::move(prefix));
      }
      t.by_type[k].push_back(std::move(table));
    }
  }
  return t;
}

struct ColumnPart {
  int type = 0;
  int divisor = 1;
  BlockRange blocks;
  Duration latency, transfer;
  std::int64_t transfer_bytes = 0;
  double per_vgpu_rps = 0;
};

struct Column {
  int model = 0;
  int sequence = 0;  // index into the type sequences
  int batch = 1;
  std::vector<ColumnPart> parts;
  Duration latency, batch_forming;
};

// Per-sample time to move cut j's bytes between two types' servers.
Duration per_sample_transfer(const ModelProfile& p, int cut, const PlannerGpuType& from, const PlannerGpuType& to) {
  return transfer_time(p.cut_bytes(cut), std::min(from.nic_gbps, to.nic_gbps));
}

void add_columns(int model_index, const ModelProfile& profile, const ModelTables& tables,
                 const std::vector<PlannerGpuType>& gpus, const std::vector<TypeSequence>& sequences,
                 Duration planning_slo, std::optional<double> lambda_rps, const PpipeOptions& options,
                 std::vector<Column>& out) {
  const int n = profile.blocks();
  for (std::size_t s = 0; s < sequences.size(); ++s) {
    const auto& seq = sequences[s];
    const int parts = static_cast<int>(seq.size());
    if (parts > n) continue;
    for (const auto& cuts : enumerate_cuts(n, parts)) {
      std::vector<int> bounds{0};
      bounds.insert(bounds.end(), cuts.begin(), cuts.end());
      bounds.push_back(n);
      // Every combination of one latency table (divisor) per partition.
      std::vector<std::size_t> pick(static_cast<std::size_t>(parts), 0);
      bool any = true;
      for (const int k : seq)
        any = any && !tables.by_type[static_cast<std::size_t>(k)].empty();
      while (any) {
        int lo = 1, hi = kMaxBatchSize;
        for (int d = 0; d < parts; ++d) {
          const auto& t = tables.by_type[static_cast<std::size_t>(seq[static_cast<std::size_t>(d)])]
                                        [pick[static_cast<std::size_t>(d)]];
          lo = std::max(lo, t.min_batch);
          hi = std::min(hi, t.max_batch);
        }
        for (int b = lo; b <= hi; ++b) {
          if (!allowed(options.batch_sizes, b)) continue;
          Column c;
          c.model = model_index;
          c.sequence = static_cast<int>(s);
          c.batch = b;
          if (lambda_rps && *lambda_rps > 0)
            c.batch_forming = Duration::from_s(options.batch_build_factor * (b - 1) / *lambda_rps);
          Duration total = c.batch_forming;
          for (int d = 0; d < parts; ++d) {
            const auto k = static_cast<std::size_t>(seq[static_cast<std::size_t>(d)]);
            const auto& t = tables.by_type[k][pick[static_cast<std::size_t>(d)]];
            ColumnPart part;
            part.type = static_cast<int>(k);
            part.divisor = t.divisor;
            part.blocks = {bounds[static_cast<std::size_t>(d)], bounds[static_cast<std::size_t>(d) + 1]};
            part.latency = t.range(b, part.blocks.begin, part.blocks.end);
            if (d + 1 < parts) part.transfer_bytes = profile.cut_bytes(part.blocks.end) * b;
            if (d + 1 < parts)
              part.transfer = transfer_time(
                  part.transfer_bytes,
                  std::min(gpus[k].nic_gbps,
                           gpus[static_cast<std::size_t>(seq[static_cast<std::size_t>(d) + 1])].nic_gbps));
            double rps = part.latency > Duration() ? b / part.latency.to_s() : 0;
            if (options.nic_cap) {
              // The v·s_k vGPUs of a node share its downlink (input cut) and uplink (output cut).
              const double sharers = static_cast<double>(t.divisor * gpus[k].gpus_per_server);
              if (part.blocks.begin > 0) {
                const auto& prev = gpus[static_cast<std::size_t>(seq[static_cast<std::size_t>(d) - 1])];
                const auto tau = per_sample_transfer(profile, part.blocks.begin, prev, gpus[k]);
                if (tau > Duration()) rps = std::min(rps, 1.0 / (tau.to_s() * sharers));
              }
              if (part.blocks.end < n) {
                const auto& next = gpus[static_cast<std::size_t>(seq[static_cast<std::size_t>(d) + 1])];
                const auto tau = per_sample_transfer(profile, part.blocks.end, gpus[k], next);
                if (tau > Duration()) rps = std::min(rps, 1.0 / (tau.to_s() * sharers));
              }
            }
            part.per_vgpu_rps = rps;
            total += part.latency + part.transfer;
            c.parts.push_back(part);
          }
          c.latency = total - c.batch_forming;
          if (total <= planning_slo) out.push_back(std::move(c));
        }
        // Next divisor combination.
        int d = parts - 1;
        while (d >= 0) {
          auto& p = pick[static_cast<std::size_t>(d)];
          if (++p < tables.by_type[static_cast<std::size_t>(seq[static_cast<std::size_t>(d)])].size()) break;
          p = 0;
          --d;
        }
        if (d < 0) break;
      }
    }
  }
}

// Rate of one physical GPU of partition d: its v vGPUs together.
double per_gpu_rps(const ColumnPart& part) {
  return part.divisor * part.per_vgpu_rps;
}

// Drops every column another column of the same model and type sequence dominates: at least as
// many requests per second on each partition's physical GPU. Any plan using the dominated column
// does at least as well with the dominating one on the same GPUs (both already meet the SLO), so
// the optimum is unchanged; ties keep the first column, so the result stays deterministic. The
// ablation's 3-partition cases shrink from ~12k columns to a few hundred (BENCHMARKS.md).
std::vector<Column> prune_dominated(std::vector<Column> columns) {
  std::map<std::pair<int, int>, std::vector<std::size_t>> groups;
  for (std::size_t c = 0; c < columns.size(); ++c)
    groups[{columns[c].model, columns[c].sequence}].push_back(c);
  std::vector<char> keep(columns.size(), 1);
  const auto dominates = [&](const Column& a, const Column& b) {
    for (std::size_t d = 0; d < a.parts.size(); ++d)
      if (per_gpu_rps(a.parts[d]) < per_gpu_rps(b.parts[d])) return false;
    return true;
  };
  for (auto& [key, members] : groups) {
    // Strongest first partition first, so a column can only be dominated by one before it or equal to it.
    std::ranges::stable_sort(members, [&](std::size_t a, std::size_t b) {
      return per_gpu_rps(columns[a].parts[0]) > per_gpu_rps(columns[b].parts[0]);
    });
    std::vector<std::size_t> front;
    for (const std::size_t c : members) {
      bool dominated = false;
      for (const std::size_t f : front)
        if (dominates(columns[f], columns[c])) {
          dominated = true;
          break;
        }
      if (dominated) {
        keep[c] = 0;
        continue;
      }
      std::erase_if(front, [&](std::size_t f) {
        if (!dominates(columns[c], columns[f])) return false;
        keep[f] = 0;
        return true;
      });
      front.push_back(c);
    }
  }
  std::vector<Column> out;
  out.reserve(columns.size());
  for (std::size_t c = 0; c < columns.size(); ++c)
    if (keep[c]) out.push_back(std::move(columns[c]));
  return out;
}

}  // namespace

Duration planning_slo(Duration slo, double margin) {
  return slo - Duration::from_us(std::round(margin * slo.to_us()));
}

void check_planner_inputs(const std::vector<PlannerModel>& models, const std::vector<PlannerGpuType>& gpus,
                          const PpipeOptions& options) {
  if (models.empty()) throw QueryError("nothing to plan: no models");
  if (gpus.empty()) throw QueryError("nothing to plan on: the cluster has no GPUs");
  if (options.max_partitions < 1 || options.max_partitions > 3)
    throw QueryError("partitions per pipeline must be 1, 2 or 3 (got " + std::to_string(options.max_partitions) + ")");
  if (!(options.slo_margin >= 0 && options.slo_margin < 1))
    throw QueryError("the SLO margin must be in [0, 1) (got " + std::to_string(options.slo_margin) + ")");
  for (const auto& m : models) {
    if (!m.profile) throw QueryError("a model without a profile");
    if (m.slo <= Duration()) throw QueryError(m.profile->name + ": the SLO must be positive");
    if (!(m.weight > 0)) throw QueryError(m.profile->name + ": the workload weight must be positive");
  }
}

PipelinePlan solve_pipeline_milp(const std::vector<PlannerModel>& models, const std::vector<PlannerGpuType>& gpus,
                                 const PpipeOptions& options, const std::string& system,
                                 const std::vector<std::optional<double>>& lambda) {
  check_planner_inputs(models, gpus, options);
  PipelinePlan plan;
  plan.system = system;
  const auto sequences = enumerate_type_sequences(static_cast<int>(gpus.size()), options.max_partitions);
  std::vector<Column> columns;
  for (std::size_t m = 0; m < models.size(); ++m) {
    const auto& p = *models[m].profile;
    PlannedModel pm{p.name, models[m].slo, planning_slo(models[m].slo, options.slo_margin), models[m].weight, 0};
    const auto before = columns.size();
    add_columns(static_cast<int>(m), p, build_tables(p, gpus, options), gpus, sequences, pm.planning_slo, lambda[m],
                options, columns);
    if (columns.size() == before)
      plan.notes.push_back(p.name + ": no pipeline meets " + std::to_string(pm.planning_slo.to_ms()) +
                           " ms (the SLO less the margin) on this cluster; it gets no GPUs");
    plan.models.push_back(std::move(pm));
  }
  const auto enumerated = columns.size();
  columns = prune_dominated(std::move(columns));
  plan.solve.enumerated_columns = static_cast<int>(enumerated);
  plan.solve.columns = static_cast<int>(columns.size());
  const bool multi = models.size() > 1;
  MilpProblem milp(Sense::Maximize);
  const int z = multi ? milp.add_variable(VarKind::Continuous, 0, MilpProblem::kInf, 1, "z") : -1;
  // Per column: its throughput x, the whole GPUs h of each partition and, with one column per type
  // sequence, a binary y. A partition's vGPUs are all v of each of its GPUs (MPS splits a GPU
  // evenly, digest §2.5 fix 5), so x ≤ v·X·h stands for the paper's x ≤ X·g, g ≤ v·h.
  std::vector<int> x(columns.size()), y(columns.size(), -1);
  std::vector<std::vector<int>> h(columns.size());
  std::vector<std::vector<std::pair<int, double>>> per_type(gpus.size());
  std::map<std::pair<int, int>, std::vector<std::pair<int, double>>> per_sequence;
  std::vector<std::vector<std::pair<int, double>>> per_model(models.size());
  for (std::size_t c = 0; c < columns.size(); ++c) {
    const auto& col = columns[c];
    x[c] = milp.add_variable(VarKind::Continuous, 0, MilpProblem::kInf, multi ? 0.0 : 1.0);
    per_model[static_cast<std::size_t>(col.model)].emplace_back(
        x[c], 1.0 / models[static_cast<std::size_t>(col.model)].weight);
    if (!options.several_configs_per_sequence) {
      y[c] = milp.add_variable(VarKind::Binary, 0, 1, 0);
      per_sequence[{col.model, col.sequence}].emplace_back(y[c], 1.0);
    }
    for (const auto& part : col.parts) {
      const int nk = gpus[static_cast<std::size_t>(part.type)].count;
      const int hv = milp.add_variable(VarKind::Integer, 0, nk, 0);
      h[c].push_back(hv);
      milp.add_row({{x[c], 1.0}, {hv, -per_gpu_rps(part)}}, -MilpProblem::kInf, 0);  // x ≤ v·X·h
      if (y[c] >= 0) milp.add_row({{hv, 1.0}, {y[c], -static_cast<double>(nk)}}, -MilpProblem::kInf, 0);
      per_type[static_cast<std::size_t>(part.type)].emplace_back(hv, 1.0);
    }
  }
  for (std::size_t k = 0; k < gpus.size(); ++k)
    if (!per_type[k].empty()) milp.add_row(per_type[k], -MilpProblem::kInf, gpus[k].count);
  for (auto& [key, terms] : per_sequence)
    milp.add_row(std::move(terms), -MilpProblem::kInf, 1);
  if (multi)
    for (auto& terms : per_model) {
      terms.emplace_back(z, -1.0);  // z ≤ Σ x / w
      milp.add_row(std::move(terms), 0, MilpProblem::kInf);
    }
  plan.solve.variables = milp.variable_count();
  plan.solve.rows = milp.row_count();
  if (columns.empty()) {
    plan.solve.status = "infeasible";
    plan.solve.proven_optimal = true;  // no column meets the SLO: zero is all there is
    return plan;
  }
  MilpOptions mo;
  mo.time_limit_s = options.time_limit_s;
  mo.relative_gap = options.mip_gap;
  mo.cancel = options.cancel;
  // The max-min objective's relaxation spreads z over fractional GPUs; cuts and pseudo-costs take
  // the maf19 cases from up to 10 s to under 1.5 s, while single-model problems (tight already) can
  // slow down 100-fold with cuts (BENCHMARKS.md).
  mo.gomory_cuts = mo.pseudocost_branching = multi;
  const auto r = milp.solve(mo);
  plan.solve.status = to_string(r.status);
  plan.solve.proven_optimal = r.status == MilpStatus::Optimal;
  plan.solve.objective = r.objective;
  plan.solve.best_bound = r.best_bound;
  plan.solve.gap = r.gap;
  plan.solve.seconds = r.solve_seconds;
  if (!r.has_solution()) return plan;

  const auto value = [&](int var) { return r.values[static_cast<std::size_t>(var)]; };
  for (std::size_t c = 0; c < columns.size(); ++c) {
    const double assigned = value(x[c]);
    if (assigned <= 1e-6) continue;
    const auto& col = columns[c];
    PlannedPipeline pipe;
    pipe.model = models[static_cast<std::size_t>(col.model)].profile->name;
    pipe.batch = col.batch;
    pipe.latency = col.latency;
    pipe.batch_forming = col.batch_forming;
    pipe.assigned_rps = assigned;
    pipe.capacity_rps = MilpProblem::kInf;
    for (std::size_t d = 0; d < col.parts.size(); ++d) {
      const auto& part = col.parts[d];
      PlannedPartition pp;
      pp.gpu = gpus[static_cast<std::size_t>(part.type)].gpu;
      pp.vgpu_divisor = part.divisor;
      pp.blocks = part.blocks;
      pp.gpus = static_cast<int>(std::lround(value(h[c][d])));
      pp.vgpus = pp.gpus * part.divisor;
      pp.latency = part.latency;
      pp.transfer = part.transfer;
      pp.transfer_bytes = part.transfer_bytes;
      pp.capacity_rps = pp.vgpus * part.per_vgpu_rps;
      pipe.capacity_rps = std::min(pipe.capacity_rps, pp.capacity_rps);
      pipe.partitions.push_back(std::move(pp));
    }
    plan.models[static_cast<std::size_t>(col.model)].throughput_rps += assigned;
    plan.pipelines.push_back(std::move(pipe));
  }
  return plan;
}

namespace {

std::vector<std::optional<double>> no_lambda(std::size_t n) {
  return std::vector<std::optional<double>>(n);
}

PpipeOptions np_options(PpipeOptions o) {
  o.max_partitions = 1;
  o.vgpu_divisors = {1};
  o.batch_forming = false;
  o.several_configs_per_sequence = false;
  return o;
}

}  // namespace

double PipelinePlan::total_throughput_rps() const {
  double total = 0;
  for (const auto& m : models)
    total += m.throughput_rps;
  return total;
}

int PipelinePlan::gpus_used(const std::string& gpu) const {
  int n = 0;
  for (const auto& p : pipelines)
    for (const auto& part : p.partitions)
      if (part.gpu == gpu) n += part.gpus;
  return n;
}

std::vector<PlannerGpuType> planner_gpu_types(const Cluster& cluster) {
  std::vector<PlannerGpuType> out;
  for (const auto& node : cluster.nodes) {
    auto it = std::ranges::find(out, node.gpu, &PlannerGpuType::gpu);
    if (it == out.end()) {
      out.push_back({node.gpu, 0, 0, std::min(node.nic_up_gbps, node.nic_down_gbps)});
      it = out.end() - 1;
    }
    it->count += node.gpu_count * node.count;
    it->gpus_per_server = std::max(it->gpus_per_server, node.gpu_count);
    it->nic_gbps = std::min({it->nic_gbps, node.nic_up_gbps, node.nic_down_gbps});
  }
  std::erase_if(out, [](const PlannerGpuType& t) { return t.count == 0; });
  return out;
}

PipelinePlan plan_np(const std::vector<PlannerModel>& models, const std::vector<PlannerGpuType>& gpus,
                     const PpipeOptions& options) {
  return solve_pipeline_milp(models, gpus, np_options(options), "np", no_lambda(models.size()));
}

PipelinePlan plan_ppipe(const std::vector<PlannerModel>& models, const std::vector<PlannerGpuType>& gpus,
                        const PpipeOptions& options) {
  auto lambda = no_lambda(models.size());
  std::optional<PipelinePlan> np;
  if (options.batch_forming) {
    if (options.batch_forming_rate_rps) {
      std::ranges::fill(lambda, options.batch_forming_rate_rps);
    } else {
      // λ̂: the NP plan's throughput per model (digest §2.2), solved first.
      np = plan_np(models, gpus, options);
      for (std::size_t m = 0; m < models.size(); ++m)
        if (np->models[m].throughput_rps > 0) lambda[m] = np->models[m].throughput_rps;
    }
  }
  auto plan = solve_pipeline_milp(models, gpus, options, "ppipe", lambda);
  if (np)
    for (std::size_t m = 0; m < models.size(); ++m)
      if (!lambda[m])
        plan.notes.push_back(models[m].profile->name +
                             ": NP serves nothing, so the batch-forming estimate is left out for it");
  return plan;
}

}  // namespace servescope::engine
