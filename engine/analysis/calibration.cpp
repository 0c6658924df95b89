#include "engine/analysis/calibration.h"

#include <algorithm>
#include <cmath>
#include <compare>
#include <optional>
#include <set>
#include <utility>

#include "engine/analysis/spell_fit.h"
#include "model/core/error.h"
#include "model/profile/measured_table.h"

namespace servescope::engine {
namespace {

struct EntryKey {
  std::uint32_t model = 0;
  int begin = -1, end = -1;  // −1: the whole model
  std::string gpu;
  GpuShare share;
  int batch = 1;
  auto operator<=>(const EntryKey&) const = default;
  std::optional<BlockRange> blocks() const { return begin < 0 ? std::nullopt : std::optional(BlockRange{begin, end}); }
  LatencyQuery query() const { return {gpu, share, batch, blocks()}; }
};

struct GroupKey {  // contention is per device type, share and batch size
  std::string gpu;
  GpuShare share;
  int batch = 1;
  auto operator<=>(const GroupKey&) const = default;
};

struct Measured {
  EntryKey entry;
  std::uint32_t slot = 0;
  Time start;
  Duration took;
  double company = 0;   // the other slots' busy time beside it, over its own time
  double ratio = 0;     // took over the profile's median
  bool shared = false;  // its slot has others on its device
};

constexpr std::size_t kMedianLevel = 3;
static_assert(kDistributionLevels[kMedianLevel] == 0.5);

double median(std::vector<double> v) {
  std::ranges::sort(v);
  const auto n = v.size();
  return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

// The profile's levels for an entry: its distribution, or its median at every level.
std::vector<Duration> levels_of(const ModelProfile& p, const LatencyQuery& q) {
  if (auto levels = p.latency_levels(q)) return *levels;
  return std::vector<Duration>(kDistributionLevels.size(), p.latency(q));
}

Duration p99_of(const ModelProfile& p, const LatencyQuery& q) {
  const auto levels = levels_of(p, q);
  return Duration::from_s(at_level(0.99, [&](std::size_t i) { return levels[i].to_s(); }));
}

Duration scaled(Duration d, double factor) {
  return Duration::nanoseconds(std::llround(static_cast<double>(d.count_ns()) * factor));
}

// Busy time of `others`' spans within [start, end), summed: spans on one slot follow each other,
// so each slot's are sorted by end as well as start.
double company_of(const TimelineData& run, const TimelineSpan& s, const std::vector<std::uint32_t>& others,
                  const std::vector<std::vector<std::size_t>>& by_slot) {
  const auto took = static_cast<double>((s.end - s.start).count_ns());
  if (!(took > 0)) return 0;
  double busy = 0;
  for (const auto h : others) {
    const auto& list = by_slot[h];
    auto it = std::ranges::partition_point(list, [&](std::size_t i) { return run.spans[i].end <= s.start; });
    for (; it != list.end() && run.spans[*it].start < s.end; ++it) {
      const auto& o = run.spans[*it];
      busy += static_cast<double>((std::min(o.end, s.end) - std::max(o.start, s.start)).count_ns());
    }
  }
  return busy / took;
}

// Per device type, its spells: each batch's normal score among its entry's batches (those
// with at least `min_runs`), in start order per slot.
std::map<std::string, SpellChange> fit_spells(const ProfileSet& profiles, const std::vector<Measured>& batches,
                                              const std::map<EntryKey, std::vector<Duration>>& measured,
                                              const std::map<EntryKey, std::vector<std::size_t>>& members, int min_runs,
                                              std::size_t slots) {
  std::map<std::string, std::vector<std::vector<std::pair<Time, double>>>> by_type;  // type → slot → scores
  for (const auto& [key, took] : measured) {
    // Too few to rank, or all alike (a published median, a hand-made run): no order to learn from.
    if (static_cast<int>(took.size()) < min_runs || std::ranges::min(took) == std::ranges::max(took)) continue;
    const auto scores = normal_scores(took);
    const auto& indices = members.at(key);
    auto& series = by_type[key.gpu];
    series.resize(slots);
    for (std::size_t k = 0; k < indices.size(); ++k) {
      const auto& b = batches[indices[k]];
      series[b.slot].emplace_back(b.start, scores[k]);
    }
  }
  std::map<std::string, SpellChange> out;
  for (auto& [gpu, series] : by_type) {
    for (auto& slot : series)
      std::ranges::sort(slot, {}, &std::pair<Time, double>::first);
    const auto fit = fit_spell(series);
    out[gpu] = SpellChange{gpu, profiles.contention_on(gpu).spell, fit.spell, fit.pairs, fit.lag1};
  }
  return out;
}

// A stage of a model on a device type and share: the entries that share a table row.
struct Stage {
  std::uint32_t model;
  int begin, end;
  std::string gpu;
  GpuShare share;
  auto operator<=>(const Stage&) const = default;
};
using StageChanges = std::map<Stage, std::map<int, std::vector<double>>>;  // stage → batch → factor per level

// The shares a model's profile holds on a device type.
std::vector<GpuShare> profiled_shares(const ModelProfile& p, const std::string& gpu) {
  std::vector<GpuShare> out;
  const auto add = [&](const std::string& g, GpuShare share) {
    if (g == gpu && std::ranges::find(out, share) == out.end()) out.push_back(share);
  };
  for (const auto& t : p.block_tables)
    add(t.gpu, t.share);
  for (const auto& t : p.batch_tables)
    add(t.gpu, t.share);
  for (const auto& f : p.linear_fits)
    add(f.gpu, f.share);
  return out;
}

// A stage's share the run never ran takes the median change of the nearest share of it the run
// did (by the ratio of their fractions): what slows a machine's slots slows them at every share,
// and a planner must not prefer a share because the run left it at the quiet profile's times (one
// did: calibrated on two slots of 1/2, it planned the whole CPU at the profile's 23.7 ms, which
// ran at 31 ms live).
void carry_to_unrun_shares(const ProfileSet& profiles, const TimelineData& run, StageChanges& changes,
                           std::vector<std::string>& notes) {
  std::map<Stage, Stage> carried;  // target → the measured stage it takes its change from
  const auto distance = [](GpuShare a, GpuShare b) { return std::abs(std::log(a.fraction() / b.fraction())); };
  for (const auto& [stage, by_batch] : changes) {
    const auto* profile = profiles.find(run.models[stage.model]);
    for (const auto share : profiled_shares(*profile, stage.gpu)) {
      Stage target = stage;
      target.share = share;
      if (changes.contains(target)) continue;
      const auto [it, added] = carried.try_emplace(target, stage);
      if (!added && distance(share, stage.share) < distance(share, it->second.share)) it->second = stage;
    }
  }
  for (const auto& [target, source] : carried) {
    // The median's change at every level: the run saw how much slower the machine is, not the
    // spread this share would have had (the measured share's tail holds its own company).
    auto& by_batch = changes[target];
    for (const auto& [batch, factor] : changes.at(source))
      by_batch[batch].assign(factor.size(), factor[kMedianLevel]);
    const auto blocks = target.begin < 0
                            ? std::string()
                            : " blocks [" + std::to_string(target.begin) + ", " + std::to_string(target.end) + ")";
    notes.push_back(run.models[target.model] + blocks + " on " + target.gpu + " " + target.share.to_string() +
                    ": the run never ran this share; the median change measured at " + source.share.to_string() +
                    " carried");
  }
}

}  // namespace

Calibration calibrate(const ProfileSet& profiles, const TimelineData& run,
                      const std::vector<std::map<std::uint32_t, BlockRange>>& stage_blocks,
                      const CalibrationOptions& options) {
  Calibration out;
  const auto slots = run.gpus.size();
  std::vector<std::vector<std::size_t>> by_slot(slots);
  for (std::size_t i = 0; i < run.spans.size(); ++i)
    if (run.spans[i].gpu < slots) by_slot[run.spans[i].gpu].push_back(i);
  const auto device = [&](std::uint32_t g) { return g < run.gpu_physical.size() ? run.gpu_physical[g] : g; };
  std::vector<std::vector<std::uint32_t>> others(slots);
  for (std::uint32_t g = 0; g < slots; ++g)
    for (std::uint32_t h = 0; h < slots; ++h)
      if (h != g && device(h) == device(g)) others[g].push_back(h);

  // Every batch that counts, with its entry, its ratio to the profile and its company.
  std::vector<Measured> batches;
  std::set<std::string> unprofiled;
  std::size_t unanswerable = 0;
  for (std::uint32_t g = 0; g < slots; ++g) {
    int seen = 0;
    for (const auto i : by_slot[g]) {
      const auto& s = run.spans[i];
      if (s.preempted || seen++ < options.skip_first || s.start < options.skip_before || s.size == 0 ||
          s.model >= run.models.size()) {
        ++out.batches_skipped;
        continue;
      }
      const auto* profile = profiles.find(run.models[s.model]);
      if (!profile) {
        unprofiled.insert(run.models[s.model]);
        ++out.batches_skipped;
        continue;
      }
      Measured b;
      b.entry.model = s.model;
      if (g < stage_blocks.size())
        if (const auto stage = stage_blocks[g].find(s.model); stage != stage_blocks[g].end()) {
          b.entry.begin = stage->second.begin;
          b.entry.end = stage->second.end;
        }
      b.entry.gpu = g < run.gpu_types.size() ? run.gpu_types[g] : std::string();
      b.entry.share = g < run.gpu_shares.size() ? GpuShare::parse(run.gpu_shares[g]).value_or(GpuShare::whole())
                                                : GpuShare::whole();
      b.entry.batch = static_cast<int>(s.size);
      try {
        b.ratio = (s.end - s.start).to_s() / profile->latency(b.entry.query()).to_s();
      } catch (const QueryError&) {
        ++unanswerable;
        ++out.batches_skipped;
        continue;
      }
      b.slot = g;
      b.start = s.start;
      b.took = s.end - s.start;
      b.shared = !others[g].empty();
      b.company = b.shared ? company_of(run, s, others[g], by_slot) : 0;
      batches.push_back(std::move(b));
    }
  }
  for (const auto& m : unprofiled)
    out.notes.push_back("model '" + m + "' has no profile in the scenario: its batches were left out");
  if (unanswerable > 0)
    out.notes.push_back(std::to_string(unanswerable) +
                        " batches ran a size, share or device type their profile does not hold: left out");
  out.batches_used = batches.size();
  if (batches.empty())
    throw QueryError("none of the run's " + std::to_string(run.spans.size()) +
                     " batches matches a profile entry of the scenario (after the first " +
                     std::to_string(options.skip_first) + " of each slot)");

  // Contention between two slots, per device type, share and batch size, where the run had both
  // kinds of batch; the profile's where it did not.
  std::map<GroupKey, ContentionChange> groups;
  {
    std::map<GroupKey, std::pair<std::vector<double>, std::vector<double>>> split;  // alone, beside
    for (const auto& b : batches) {
      const GroupKey key{b.entry.gpu, b.entry.share, b.entry.batch};
      auto& [alone, beside] = split[key];
      if (b.company <= options.alone_below) alone.push_back(b.ratio);
      if (b.company >= options.beside_above) beside.push_back(b.ratio);
    }
    for (const auto& b : batches) {
      const GroupKey key{b.entry.gpu, b.entry.share, b.entry.batch};
      if (groups.contains(key)) continue;
      if (!b.shared) continue;  // a slot alone on its device has no contention to fit
      const auto& [alone, beside] = split[key];
      ContentionChange c;
      c.gpu = key.gpu;
      c.share = key.share;
      c.batch = key.batch;
      c.before = profiles.contention_on(key.gpu).slowdown(key.share, key.batch, 2);
      c.alone = static_cast<int>(alone.size());
      c.beside = static_cast<int>(beside.size());
      c.fitted = c.alone >= options.min_group && c.beside >= options.min_group;
      c.after = c.fitted ? std::max(1.0, median(beside) / median(alone)) : c.before;
      groups.emplace(key, c);
    }
  }

  // Each entry's batches with their contention taken out.
  std::map<EntryKey, std::vector<Duration>> measured;
  std::map<EntryKey, std::vector<std::size_t>> members;  // indices into `batches`
  for (std::size_t i = 0; i < batches.size(); ++i) {
    const auto& b = batches[i];
    const auto group = groups.find(GroupKey{b.entry.gpu, b.entry.share, b.entry.batch});
    const double pace = group == groups.end() ? 1.0 : 1.0 + (group->second.after - 1.0) * b.company;
    measured[b.entry].push_back(scaled(b.took, 1.0 / pace));
    members[b.entry].push_back(i);
  }
  const auto spells = fit_spells(profiles, batches, measured, members, options.min_runs, slots);

  // Per level, each refit entry's change; entries of one stage (model, blocks, device, share)
  // share a table row, and its unmeasured batch sizes take the nearest measured one's.
  StageChanges changes;
  std::map<EntryKey, int> runs_of;
  for (const auto& [key, took] : measured) {
    runs_of[key] = static_cast<int>(took.size());
    if (static_cast<int>(took.size()) < options.min_runs) continue;
    const auto& profile = *profiles.find(run.models[key.model]);
    const auto before = levels_of(profile, key.query());
    const auto after = LatencyDistribution::of(took);
    std::vector<double> factor;
    for (std::size_t level = 0; level < before.size(); ++level)
      factor.push_back(after.quantiles[level].to_s() / std::max(before[level].to_s(), 1e-9));
    changes[Stage{key.model, key.begin, key.end, key.gpu, key.share}][key.batch] = std::move(factor);
  }
  carry_to_unrun_shares(profiles, run, changes, out.notes);
  const auto nearest = [](const std::map<int, std::vector<double>>& by_batch, int batch) -> const std::vector<double>& {
    auto best = by_batch.begin();
    for (auto it = by_batch.begin(); it != by_batch.end(); ++it)
      if (std::abs(it->first - batch) < std::abs(best->first - batch)) best = it;
    return best->second;
  };

  std::map<std::uint32_t, ModelProfile> calibrated;
  for (const auto& [stage, by_batch] : changes) {
    auto [it, added] = calibrated.try_emplace(stage.model, *profiles.find(run.models[stage.model]));
    auto& p = it->second;
    if (added) p.origin.clear();
    switch (p.form) {
      case ProfileForm::Blocks: {
        const auto table = std::ranges::find_if(
            p.block_tables, [&](const BlockTable& t) { return t.gpu == stage.gpu && t.share == stage.share; });
        const auto& sizes = table->blocks.front().batches();
        std::vector<std::vector<LatencyDistribution>> rows(table->blocks.size());
        for (std::size_t k = 0; k < rows.size(); ++k)
          for (std::size_t i = 0; i < sizes.size(); ++i) {
            LatencyDistribution d;
            if (table->distributions.size() == rows.size())
              d = table->distributions[k][i];
            else {  // a published median: one value, no spread
              d.quantiles.assign(kDistributionLevels.size(), table->blocks[k].latency()[i]);
              d.runs = 1;
            }
            const bool in_stage =
                stage.begin < 0 || (static_cast<int>(k) >= stage.begin && static_cast<int>(k) < stage.end);
            if (in_stage) {
              const auto& factor = nearest(by_batch, sizes[i]);
              for (std::size_t level = 0; level < d.quantiles.size(); ++level)
                d.quantiles[level] = scaled(d.quantiles[level], factor[level]);
              const EntryKey exact{stage.model, stage.begin, stage.end, stage.gpu, stage.share, sizes[i]};
              if (const auto r = runs_of.find(exact); r != runs_of.end() && by_batch.contains(sizes[i]))
                d.runs = r->second;
            }
            rows[k].push_back(std::move(d));
          }
        *table = measured_block_table(table->gpu, table->share, sizes, rows);
        break;
      }
      case ProfileForm::Table: {
        const auto table = std::ranges::find_if(
            p.batch_tables, [&](const BatchTable& t) { return t.gpu == stage.gpu && t.share == stage.share; });
        std::vector<Duration> latency;
        for (std::size_t i = 0; i < table->curve.batches().size(); ++i)
          latency.push_back(
              scaled(table->curve.latency()[i], nearest(by_batch, table->curve.batches()[i])[kMedianLevel]));
        table->curve = BatchCurve(table->curve.batches(), std::move(latency));
        if (added)
          out.notes.push_back("model '" + p.name + "' is a table without distributions: its medians were scaled");
        break;
      }
      case ProfileForm::Linear: {
        const auto fit = std::ranges::find_if(
            p.linear_fits, [&](const LinearFit& f) { return f.gpu == stage.gpu && f.share == stage.share; });
        std::vector<double> medians;
        for (const auto& [b, factor] : by_batch)
          medians.push_back(factor[kMedianLevel]);
        const double factor = median(medians);
        fit->alpha = scaled(fit->alpha, factor);
        fit->beta = scaled(fit->beta, factor);
        if (added)
          out.notes.push_back("model '" + p.name + "' is a linear fit: α and β were scaled by its median change");
        break;
      }
    }
  }
  for (auto& [model, p] : calibrated)
    out.profiles.models.push_back(std::move(p));

  for (const auto& [key, runs] : runs_of) {
    EntryChange e;
    e.model = run.models[key.model];
    e.blocks = key.blocks();
    e.gpu = key.gpu;
    e.share = key.share;
    e.batch = key.batch;
    e.runs = runs;
    const auto& before = *profiles.find(e.model);
    e.refit = runs >= options.min_runs;
    e.before_p50 = before.latency(key.query());
    const auto* after = out.profiles.find(e.model);
    if (!after) after = &before;
    e.after_p50 = after->latency(key.query());
    e.before_p99 = p99_of(before, key.query());
    e.after_p99 = p99_of(*after, key.query());
    if (!e.refit)
      out.notes.push_back(e.model + " on " + e.gpu + " " + e.share.to_string() + ", batch " + std::to_string(e.batch) +
                          ": " + std::to_string(runs) + " batches, fewer than " + std::to_string(options.min_runs) +
                          (changes.contains(Stage{key.model, key.begin, key.end, key.gpu, key.share})
                               ? "; the nearest refit batch size's change carried"
                               : "; kept as profiled"));
    out.entries.push_back(std::move(e));
  }

  // Where a batch size's two-slot contention could not be fitted (too few of its batches alone or
  // beside, or none ran), the nearest fitted size's change of the same device type and share
  // carries over, as an entry's times do: what slows the machine slows every size, and a planner
  // must not pick a size because its figure was never brought up to date (one did: batch 7 at the
  // profile's ×1.05 beside batch 8's calibrated ×1.69).
  const auto carried = [&](const std::string& gpu, GpuShare share, int batch) -> std::optional<std::pair<int, double>> {
    std::optional<std::pair<int, double>> best;
    for (const auto& [key, c] : groups)
      if (c.fitted && key.gpu == gpu && key.share == share && c.before > 0 &&
          (!best || std::abs(key.batch - batch) < std::abs(best->first - batch)))
        best = std::pair{key.batch, c.after / c.before};
    return best;
  };
  for (auto& [key, c] : groups)
    if (!c.fitted)
      if (const auto from = carried(key.gpu, key.share, key.batch)) {
        c.carried_from = from->first;
        c.after = std::max(1.0, c.before * from->second);
      }

  // Each device type's contention: the profile's, with the fitted two-slot figures in place and
  // the others carried.
  std::map<std::string, ContentionModel> contention;
  for (const auto& [key, c] : groups) {
    out.contention.push_back(c);
    auto [it, added] = contention.try_emplace(key.gpu, profiles.contention_on(key.gpu));
    auto& m = it->second;
    if (added) {
      m.origin.clear();
      m.source = "calibrated from a live run" + (m.source.empty() ? std::string() : "; " + m.source);
    }
    if (!c.fitted && c.carried_from == 0) continue;
    std::erase_if(m.samples, [&](const ContentionSample& s) {
      return s.share == key.share && s.batch == key.batch && s.slots == 2;
    });
    m.samples.push_back({key.share, key.batch, 2, c.after, std::max(c.beside, 1)});
  }
  // Each measured device type's spells, kept with its contention (a device of one slot has none).
  for (const auto& [gpu, change] : spells) {
    out.spells.push_back(change);
    auto [it, added] = contention.try_emplace(gpu, profiles.contention_on(gpu));
    if (added) {
      it->second.origin.clear();
      it->second.source =
          "calibrated from a live run" + (it->second.source.empty() ? std::string() : "; " + it->second.source);
    }
    it->second.spell = change.after;
  }
  for (auto& [gpu, m] : contention) {
    // Two-slot figures of batch sizes the run never served carry the nearest fitted change too.
    for (auto& sample : m.samples)
      if (sample.slots == 2 && !groups.contains(GroupKey{gpu, sample.share, sample.batch}))
        if (const auto from = carried(gpu, sample.share, sample.batch))
          sample.slowdown = std::max(1.0, sample.slowdown * from->second);
    if (!m.samples.empty() || m.spell > Duration()) out.profiles.contention.push_back(std::move(m));
  }
  return out;
}

}  // namespace servescope::engine
