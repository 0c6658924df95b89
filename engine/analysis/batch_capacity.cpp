#include "engine/analysis/batch_capacity.h"

namespace servescope::engine {
namespace {

double throughput_rps(const ModelProfile& p, std::string_view gpu, int gpus, int batch) {
  if (batch <= 0) return 0;
  const auto l = p.latency({gpu, GpuShare::whole(), batch, std::nullopt});
  return static_cast<double>(gpus) * batch / l.to_s();
}

}  // namespace

int largest_batch_within(const ModelProfile& profile, std::string_view gpu, GpuShare share, Duration budget) {
  const int hi_batch = profile.max_batch(gpu, share);
  if (hi_batch == 0) return 0;
  // Latency is non-decreasing in batch size, so binary search for the last batch within budget.
  int lo = 0, hi = hi_batch;
  while (lo < hi) {
    const int mid = lo + (hi - lo + 1) / 2;
    if (profile.latency({gpu, share, mid, std::nullopt}) <= budget)
      lo = mid;
    else
      hi = mid - 1;
  }
  return lo;
}

StaggeredCapacity staggered_capacity(const ModelProfile& profile, std::string_view gpu, int gpus, Duration slo) {
  StaggeredCapacity c;
  c.gpus = gpus;
  if (gpus <= 0) return c;
  const auto half = Duration::nanoseconds(slo.count_ns() / 2);
  const auto stagger = Duration::nanoseconds(slo.count_ns() * gpus / (gpus + 1));
  c.batch_no_coordination = largest_batch_within(profile, gpu, GpuShare::whole(), half);
  c.batch_staggered = largest_batch_within(profile, gpu, GpuShare::whole(), stagger);
  c.throughput_no_coordination_rps = throughput_rps(profile, gpu, gpus, c.batch_no_coordination);
  c.throughput_staggered_rps = throughput_rps(profile, gpu, gpus, c.batch_staggered);
  return c;
}

}  // namespace servescope::engine
