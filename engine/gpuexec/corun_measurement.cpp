#include "engine/gpuexec/corun_measurement.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <sstream>
#include <tuple>

#include "model/core/error.h"

namespace servescope::engine::gpuexec {
namespace {

double median_ms(std::vector<std::int64_t> ns) {
  if (ns.empty()) return 0;
  const auto mid = ns.begin() + static_cast<std::ptrdiff_t>(ns.size() / 2);
  std::ranges::nth_element(ns, mid);
  return static_cast<double>(*mid) / 1e6;
}

// Runs `recipe` back to back for about the window (at least three times) on `slot`.
std::uint32_t repeats_for(double solo_ms, std::chrono::milliseconds window) {
  const double runs = static_cast<double>(window.count()) / std::max(solo_ms, 1e-3);
  return static_cast<std::uint32_t>(std::clamp(std::ceil(runs), 3.0, 100'000.0));
}

std::vector<std::int64_t> device_times(const std::vector<TimedRun>& runs) {
  std::vector<std::int64_t> out;
  out.reserve(runs.size());
  for (const auto& r : runs)
    out.push_back(r.device_ns);
  return out;
}

// The device times of `a`'s runs that lay wholly inside `b`'s busy span: the co-run's, not the
// tail one side ran alone after the other finished.
std::vector<std::int64_t> while_other_ran(const std::vector<TimedRun>& a, const std::vector<TimedRun>& b) {
  if (b.empty()) return device_times(a);
  const auto from = b.front().start_ns, to = b.back().end_ns;
  std::vector<std::int64_t> out;
  for (const auto& r : a)
    if (r.start_ns >= from && r.end_ns <= to) out.push_back(r.device_ns);
  return out.empty() ? device_times(a) : out;
}

struct Key {
  std::size_t workload;
  int batch;
  bool operator<(const Key& o) const { return std::tie(workload, batch) < std::tie(o.workload, o.batch); }
};

}  // namespace

std::vector<SyntheticWorkload> default_workloads() {
  return {{"compute", 1.0}, {"compute-heavy", 0.8}, {"mixed", 0.5}, {"memory-heavy", 0.2}, {"memory", 0.0}};
}

double busy_overlap(const std::vector<TimedRun>& a, const std::vector<TimedRun>& b) {
  std::int64_t busy = 0, shared = 0;
  std::size_t j = 0;
  for (const auto& r : a) {
    busy += r.end_ns - r.start_ns;
    while (j < b.size() && b[j].end_ns <= r.start_ns)
      ++j;
    for (std::size_t k = j; k < b.size() && b[k].start_ns < r.end_ns; ++k)
      shared += std::min(r.end_ns, b[k].end_ns) - std::max(r.start_ns, b[k].start_ns);
  }
  return busy > 0 ? static_cast<double>(shared) / static_cast<double>(busy) : 0;
}

CorunResult measure_coruns(const CorunOptions& o) {
  if (o.workloads.size() < 2) throw QueryError("measure-interference needs at least two workloads");
  if (o.batches.empty() || o.sizes.empty()) throw QueryError("measure-interference needs batches and partition sizes");
  for (const int p : o.sizes)
    if (p < 1 || p > 50)
      throw QueryError("partition size " + std::to_string(p) + " %: give the smaller side, 1 to 50 (" +
                       std::to_string(p) + ":" + std::to_string(100 - p) + " is measured both ways round)");
  const auto say = [&](const std::string& line) {
    if (o.progress) o.progress(line);
  };
  CorunResult result;

  // 1. Each workload's recipe at each batch, tuned alone on the whole GPU, and its features there.
  std::map<Key, gpu::WorkRecipe> recipes;
  {
    SlotProcess whole(o.slot_command(100), o.ready_within);
    const auto& ready = whole.wait_ready();
    result.device = ready.device;
    const double dram_rate = 1 / ready.stream.per_unit_ns;  // bytes per ns of a long stream
    for (std::size_t w = 0; w < o.workloads.size(); ++w) {
      UtilisationProfile u;
      u.model = o.workloads[w].name;
      u.gpu = o.gpu;
      u.origin = "servescope-cli measure-interference on " + ready.device;
      for (const int b : o.batches) {
        const auto tuned = whole.tune(b * o.ns_per_sample, o.workloads[w].compute_fraction);
        const auto& r = tuned.recipe;
        recipes[{w, b}] = r;
        const double ns = static_cast<double>(std::max<std::int64_t>(1, tuned.measured_ns));
        const double streamed = static_cast<double>(r.stream_bytes);
        UtilisationSample s;
        s.batch = b;
        s.dram_util = std::clamp(streamed / ns / dram_rate, 0.0, 1.0);
        s.l2_util = ready.l2_bytes_per_ns > 0
                        ? std::clamp((streamed + static_cast<double>(r.gemms) * ready.gemm_l2_bytes) / ns /
                                         ready.l2_bytes_per_ns,
                                     0.0, 1.0)
                        : s.dram_util;
        s.sm_util = std::clamp(static_cast<double>(r.gemms) * ready.gemm.per_unit_ns / ns, 0.0, 1.0);
        u.samples.push_back(s);
      }
      std::ranges::sort(u.samples, {}, &UtilisationSample::batch);
      result.utilisation.push_back(std::move(u));
      say("tuned " + o.workloads[w].name + " at " + std::to_string(o.batches.size()) + " batch sizes");
    }
  }

  // 2. Per split: solos on each side, then every pair of workloads, both ways round.
  double overlap_sum = 0;
  std::size_t sides = 0;
  for (const int p : o.sizes) {
    const int q = 100 - p;
    SlotProcess left(o.slot_command(p), o.ready_within), right(o.slot_command(q), o.ready_within);
    left.wait_ready();  // the two calibrate at the same time
    right.wait_ready();
    std::map<Key, double> solo_left, solo_right;
    for (const auto& [key, recipe] : recipes) {
      for (auto* side : {&left, &right}) {
        const auto probe = side->time(recipe, 3);
        const auto repeats = repeats_for(median_ms(device_times(probe.runs)), o.window);
        (side == &left ? solo_left : solo_right)[key] = median_ms(device_times(side->time(recipe, repeats).runs));
      }
    }
    say("split " + std::to_string(p) + ":" + std::to_string(q) + ": timed " + std::to_string(recipes.size()) +
        " workloads alone on each side");
    std::size_t coruns = 0;
    for (const auto& [a, ra] : recipes)
      for (const auto& [b, rb] : recipes) {
        if (a.workload == b.workload) continue;
        if (p == q && a.workload > b.workload) continue;  // 50:50 is its own mirror
        // Both start before either is waited on: the two run at the same time.
        const auto left_tag = left.start_timing(ra, repeats_for(solo_left[a], o.window));
        const auto right_tag = right.start_timing(rb, repeats_for(solo_right[b], o.window));
        const auto l = left.timed(left_tag), r = right.timed(right_tag);
        const double l_overlap = busy_overlap(l.runs, r.runs), r_overlap = busy_overlap(r.runs, l.runs);
        result.rows.push_back({o.workloads[a.workload].name, a.batch, p, o.workloads[b.workload].name, b.batch, q,
                               solo_left[a], median_ms(while_other_ran(l.runs, r.runs)), l_overlap});
        result.rows.push_back({o.workloads[b.workload].name, b.batch, q, o.workloads[a.workload].name, a.batch, p,
                               solo_right[b], median_ms(while_other_ran(r.runs, l.runs)), r_overlap});
        overlap_sum += l_overlap + r_overlap;
        sides += 2;
        ++coruns;
        if (o.rows_so_far) o.rows_so_far(result.rows);
      }
    say("split " + std::to_string(p) + ":" + std::to_string(q) + ": " + std::to_string(coruns) + " co-runs");
  }
  result.mean_overlap = sides > 0 ? overlap_sum / static_cast<double>(sides) : 0;
  return result;
}

InterferenceFit fit_coruns(const CorunResult& result, const std::string& gpu, double train_fraction,
                           std::uint64_t seed) {
  std::map<std::string, const UtilisationProfile*> by_name;
  for (const auto& u : result.utilisation)
    by_name[u.model] = &u;
  std::vector<InterferenceSample> samples;
  samples.reserve(result.rows.size());
  for (const auto& r : result.rows) {
    const auto self = by_name.find(r.model), other = by_name.find(r.other_model);
    if (self == by_name.end() || other == by_name.end())
      throw QueryError("co-run of " + r.model + " beside " + r.other_model + ": no utilisation measured for one");
    samples.push_back(corun_sample(*self->second, r.batch, r.size_percent / 100.0, *other->second, r.other_batch,
                                   r.other_size_percent / 100.0, r.solo_ms, r.corun_ms));
  }
  return fit_interference(std::move(samples), gpu, train_fraction, seed);
}

std::string coruns_csv(const std::vector<CorunRow>& rows) {
  std::ostringstream out;
  out.precision(9);
  out << "model,batch,size_percent,other_model,other_batch,other_size_percent,solo_ms,corun_ms\n";
  for (const auto& r : rows)
    out << r.model << ',' << r.batch << ',' << r.size_percent << ',' << r.other_model << ',' << r.other_batch << ','
        << r.other_size_percent << ',' << r.solo_ms << ',' << r.corun_ms << '\n';
  return out.str();
}

}  // namespace servescope::engine::gpuexec
