#include "engine/analysis/batch_capacity.h"

#include "engine/dataplane/batch_latency.h"

namespace servescope::engine {
namespace {

double throughput_rps(const ModelProfile& p, std::string_view gpu, int gpus, int batch) {
  if (batch <= 0) return 0;
  const auto l = p.latency({gpu, GpuShare::whole(), batch, std::nullopt});
  return static_cast<double>(gpus) * batch / l.to_s();
}

}  // namespace

int largest_batch_within(const ModelProfile& profile, std::string_view gpu, GpuShare share, Duration budget) {
  if (profile.max_batch(gpu, share) == 0) return 0;
  // The schedulers' own table, so that the closed form and the data planes agree on what fits.
  const BatchLatency latency(profile, gpu, share);
  return latency.largest_within(budget, latency.max_batch());
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
