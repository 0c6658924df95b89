#include "engine/ppipe/pipeline_columns.h"

#include <algorithm>
#include <map>
#include <set>

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

// Per-sample time to move cut j's bytes between two types' servers.
Duration per_sample_transfer(const ModelProfile& p, int cut, const PlannerGpuType& from, const PlannerGpuType& to) {
  return transfer_time(p.cut_bytes(cut), std::min(from.nic_gbps, to.nic_gbps));
}

}  // namespace

void add_pipeline_columns(int model_index, const ModelProfile& profile, const std::vector<PlannerGpuType>& gpus,
                          const std::vector<TypeSequence>& sequences, Duration planning_slo,
                          std::optional<double> lambda_rps, const PpipeOptions& options,
                          std::vector<PipelineColumn>& out) {
  const auto tables = build_tables(profile, gpus, options);
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
          PipelineColumn c;
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
            part.latency = with_company(gpus[k], t.divisor, b, t.range(b, part.blocks.begin, part.blocks.end));
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

// Any plan using a dominated column does at least as well with the dominating one on the same GPUs
// (both already meet the SLO). The ablation's 3-partition cases shrink from ~12k columns to a few
// hundred (BENCHMARKS.md).
std::vector<PipelineColumn> prune_dominated(std::vector<PipelineColumn> columns) {
  std::map<std::pair<int, int>, std::vector<std::size_t>> groups;
  for (std::size_t c = 0; c < columns.size(); ++c)
    groups[{columns[c].model, columns[c].sequence}].push_back(c);
  std::vector<char> keep(columns.size(), 1);
  const auto dominates = [&](const PipelineColumn& a, const PipelineColumn& b) {
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
  std::vector<PipelineColumn> out;
  out.reserve(columns.size());
  for (std::size_t c = 0; c < columns.size(); ++c)
    if (keep[c]) out.push_back(std::move(columns[c]));
  return out;
}

}  // namespace servescope::engine
