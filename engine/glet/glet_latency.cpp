#include "engine/glet/glet_latency.h"

#include <algorithm>
#include <cmath>
#include <iomanip>
#include <sstream>

#include "model/core/error.h"

namespace servescope::engine {
namespace {

// Linear in batch between the profiled samples, flat beyond them (Nsight profiles stop at 32).
double interpolate(const std::vector<UtilisationSample>& samples, int batch, double UtilisationSample::*field) {
  if (samples.empty()) return 0;
  if (batch <= samples.front().batch) return samples.front().*field;
  if (batch >= samples.back().batch) return samples.back().*field;
  const auto hi = std::ranges::lower_bound(samples, batch, {}, &UtilisationSample::batch);
  if (hi->batch == batch) return (*hi).*field;
  const auto lo = hi - 1;
  const double w = static_cast<double>(batch - lo->batch) / (hi->batch - lo->batch);
  return (*lo).*field + w * ((*hi).*field - (*lo).*field);
}

// Features are fractions measured alone on the whole GPU, scaled by each glet's share (§4.7).
double linear_slowdown(const InterferenceModel& c, double l2_self, double dram_self, int size_self, double l2_other,
                       double dram_other, int size_other) {
  const double s = size_self / 100.0, o = size_other / 100.0;
  return std::max(1.0, c.l2_self * l2_self * s + c.l2_other * l2_other * o + c.dram_self * dram_self * s +
                           c.dram_other * dram_other * o + c.constant);
}

}  // namespace

UtilisationAt utilisation_at(const UtilisationProfile* profile, int batch) {
  if (!profile) return {};
  return {interpolate(profile->samples, batch, &UtilisationSample::l2_util),
          interpolate(profile->samples, batch, &UtilisationSample::dram_util)};
}

double interference_factor(const InterferenceModel& c, const UtilisationProfile* self, int batch, int size_percent,
                           const UtilisationProfile* other, int other_batch, int other_size_percent) {
  const auto s = utilisation_at(self, batch), o = utilisation_at(other, other_batch);
  return linear_slowdown(c, s.l2, s.dram, size_percent, o.l2, o.dram, other_size_percent);
}

Duration gather_time(int batch, double rate_rps) {
  return Duration::from_s(batch / rate_rps);
}

GletLatency::GletLatency(std::vector<GletModel> models, GletLatencyOptions options)
    : models_(std::move(models)), options_(std::move(options)) {
  if (options_.sizes.empty()) throw QueryError("glet: no partition sizes allowed");
  for (const int p : options_.sizes)
    if (p < 1 || p > 100)
      throw QueryError("glet: a partition size is a percentage from 1 to 100, not " + std::to_string(p));
  std::ranges::sort(options_.sizes);
  if (options_.max_batch < 1) throw QueryError("glet: the batch cap must be at least 1");
  for (std::size_t m = 0; m < models_.size(); ++m) {
    const auto& gm = models_[m];
    if (!gm.profile) throw QueryError("glet: model " + std::to_string(m) + " has no profile");
    if (gm.slo <= Duration()) throw QueryError("glet: " + gm.profile->name + " needs a positive SLO");
    for (const int p : options_.sizes)
      if (gm.profile->max_batch(options_.gpu, GpuShare::percent(p)) < 1) {
        // Name what is profiled, so the user can pick sizes the profiles do have.
        std::string have;
        for (const auto& [gpu, share] : gm.profile->configurations())
          if (gpu == options_.gpu) {
            std::ostringstream pct;
            pct << std::setprecision(3) << 100 * share.fraction() << " %";
            have += (have.empty() ? "" : ", ") + pct.str();
          }
        throw QueryError("glet: " + gm.profile->name + " has no latency profile on " + options_.gpu + " at " +
                         std::to_string(p) + " % (profiled shares: " + (have.empty() ? "none" : have) +
                         "; choose partition sizes among them)");
      }
    if (options_.interference && !gm.utilisation && options_.require_utilisation)
      throw QueryError("glet: " + gm.profile->name +
                       " has no L2/DRAM utilisation, which the interference model needs (or plan without it)");
  }
  solo_.resize(models_.size());
  features_.resize(models_.size());
  for (std::size_t m = 0; m < models_.size(); ++m) {
    const auto& gm = models_[m];
    for (const int p : options_.sizes) {
      auto& row = solo_[m].emplace_back();
      const int cap = std::min(options_.max_batch, gm.profile->max_batch(options_.gpu, GpuShare::percent(p)));
      for (int b = 1; b <= cap; ++b)
        row.push_back(gm.profile->latency({options_.gpu, GpuShare::percent(p), b, std::nullopt}));
    }
    for (int b = 1; b <= options_.max_batch; ++b)
      features_[m].push_back(gm.utilisation
                                 ? Features{interpolate(gm.utilisation->samples, b, &UtilisationSample::l2_util),
                                            interpolate(gm.utilisation->samples, b, &UtilisationSample::dram_util)}
                                 : Features{});
  }
  saturated_.resize(models_.size());
  for (std::size_t m = 0; m < models_.size(); ++m) {
    const int mi = static_cast<int>(m);
    for (const int p : options_.sizes) {
      SaturatedPoint s;
      s.batch = max_batch_saturated(mi, p);
      if (s.batch > 0) s.throughput_rps = s.batch / effective(mi, s.batch, p).to_s();
      saturated_[m].push_back(s);
    }
    // p_eff (digest §4.4).
    const auto& t = saturated_[m];
    const auto& sizes = options_.sizes;
    int best = sizes.front();
    if (options_.knee == KneeRule::MaxEfficiency) {
      double best_eff = -1;
      for (std::size_t j = 0; j < sizes.size(); ++j)
        if (const double e = t[j].throughput_rps / sizes[j]; e >= best_eff && t[j].throughput_rps > 0) {
          best_eff = e;  // ≥: ties go to the larger size
          best = sizes[j];
        }
    } else {
      // The smallest feasible size is the knee unless a later step gains ≥ 5 % at a better rate.
      std::size_t first = 0;
      while (first < sizes.size() && t[first].throughput_rps <= 0)
        ++first;
      if (first == sizes.size()) {
        best = sizes.back();
      } else {
        best = sizes[first];
        double best_gain = 0;
        const std::size_t last = options_.knee_includes_full_step ? sizes.size() : sizes.size() - 1;
        for (std::size_t j = first + 1; j < last; ++j) {
          const double lo = t[j - 1].throughput_rps, hi = t[j].throughput_rps;
          if (lo <= 0 || hi / lo < 1.05) continue;
          const double gain = (hi - lo) / (sizes[j] - sizes[j - 1]);
          if (gain > best_gain) {
            best_gain = gain;
            best = sizes[j];
          }
        }
      }
    }
    efficient_.push_back(best);
  }
}

std::size_t GletLatency::size_index(int size_percent) const {
  const auto it = std::ranges::find(options_.sizes, size_percent);
  if (it == options_.sizes.end())
    throw QueryError("glet: " + std::to_string(size_percent) + " % is not an allowed size");
  return static_cast<std::size_t>(it - options_.sizes.begin());
}

Duration GletLatency::solo(int model, int batch, int size_percent) const {
  const auto& row = solo_[static_cast<std::size_t>(model)][size_index(size_percent)];
  if (batch >= 1 && static_cast<std::size_t>(batch) <= row.size()) return row[static_cast<std::size_t>(batch - 1)];
  return models_[static_cast<std::size_t>(model)].profile->latency(
      {options_.gpu, GpuShare::percent(size_percent), batch, std::nullopt});
}

double GletLatency::interference(int model, int batch, int size_percent, const Neighbour& other) const {
  if (!options_.interference) return 1;
  const auto feature = [&](int m, int b) {
    const auto& f = features_[static_cast<std::size_t>(m)];
    return f[static_cast<std::size_t>(std::clamp(b, 1, static_cast<int>(f.size())) - 1)];
  };
  const auto self = feature(model, batch), them = feature(other.model, other.batch);
  const double alpha =
      linear_slowdown(*options_.interference, self.l2, self.dram, size_percent, them.l2, them.dram, other.size_percent);
  return options_.weight_by_occupancy ? 1 + (alpha - 1) * std::clamp(other.busy, 0.0, 1.0) : alpha;
}

double GletLatency::interference(int model, int batch, int size_percent, const std::vector<Neighbour>& others) const {
  double a = 1;
  for (const auto& o : others)
    a = std::max(a, interference(model, batch, size_percent, o));
  return a;
}

Duration GletLatency::effective(int model, int batch, int size_percent, double alpha) const {
  const double ns = static_cast<double>(solo(model, batch, size_percent).count_ns()) * alpha +
                    static_cast<double>(models_[static_cast<std::size_t>(model)].batch_overhead.count_ns());
  return Duration::nanoseconds(std::llround(options_.latency_safety * ns));
}

int GletLatency::batch_cap(int model, int size_percent) const {
  return std::min(options_.max_batch, models_[static_cast<std::size_t>(model)].profile->max_batch(
                                          options_.gpu, GpuShare::percent(size_percent)));
}

template <class Alpha>
int GletLatency::saturated_batch(int model, int size_percent, Alpha alpha) const {
  const auto slo = models_[static_cast<std::size_t>(model)].slo;
  for (int b = batch_cap(model, size_percent); b >= 1; --b)
    if (effective(model, b, size_percent, alpha(b)) * 2 <= slo) return b;
  return 0;
}

template <class Alpha>
int GletLatency::residue_batch(int model, int size_percent, double rate_rps, Alpha alpha) const {
  if (!(rate_rps > 0)) return 0;
  const auto slo = models_[static_cast<std::size_t>(model)].slo;
  for (int b = batch_cap(model, size_percent); b >= 1; --b) {
    const auto l = effective(model, b, size_percent, alpha(b));
    const auto gather = gather_time(b, rate_rps);
    if (l + gather <= slo && l <= gather) return b;
  }
  // Batches of one, each request dispatched as it comes (the prototype's special case): nothing
  // to gather, so a request waits at most for the batch in progress, as on a saturated glet.
  const auto l1 = effective(model, 1, size_percent, alpha(1));
  return l1 < gather_time(1, rate_rps) && l1 * 2 <= slo ? 1 : 0;
}

int GletLatency::max_batch_saturated(int model, int size_percent, double alpha) const {
  return saturated_batch(model, size_percent, [alpha](int) { return alpha; });
}

int GletLatency::max_batch_saturated(int model, int size_percent, const std::vector<Neighbour>& others) const {
  return saturated_batch(model, size_percent, [&](int b) { return interference(model, b, size_percent, others); });
}

int GletLatency::max_batch_residue(int model, int size_percent, double rate_rps, double alpha) const {
  return residue_batch(model, size_percent, rate_rps, [alpha](int) { return alpha; });
}

int GletLatency::max_batch_residue(int model, int size_percent, double rate_rps,
                                   const std::vector<Neighbour>& others) const {
  return residue_batch(model, size_percent, rate_rps,
                       [&](int b) { return interference(model, b, size_percent, others); });
}

const SaturatedPoint& GletLatency::saturated(int model, int size_percent) const {
  return saturated_[static_cast<std::size_t>(model)][size_index(size_percent)];
}

int GletLatency::efficient_size(int model) const {
  return efficient_[static_cast<std::size_t>(model)];
}

std::optional<int> GletLatency::required_size(int model, double rate_rps) const {
  for (const int p : options_.sizes) {
    const int b = max_batch_residue(model, p, rate_rps);
    if (b > 0 && effective(model, b, p) <= gather_time(b, rate_rps)) return p;
  }
  return std::nullopt;
}

}  // namespace servescope::engine
