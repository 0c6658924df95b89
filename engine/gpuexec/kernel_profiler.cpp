#include "engine/gpuexec/kernel_profiler.h"

#include <algorithm>
#include <cmath>

#include "engine/estimate/roofline.h"

namespace servescope::engine::gpuexec {
namespace {

Duration at_least_1us(std::int64_t ns) {
  return Duration::from_us(std::max(1.0, std::round(static_cast<double>(ns) / 1e3)));
}

Duration quantile(std::vector<std::int64_t> ns, double q) {
  std::ranges::sort(ns);
  const auto at = static_cast<std::size_t>(std::ceil(q * static_cast<double>(ns.size()))) - 1;
  return at_least_1us(ns[std::min(at, ns.size() - 1)]);
}

}  // namespace

gpu::WorkRecipe block_work(const LayerGraph& graph, int begin, int end, int batch, const DeviceRates& rates,
                           double gemm_flops, std::int64_t stream_quantum) {
  double flops = 0, bytes = 0;
  for (int l = begin; l < end; ++l) {
    const auto t = layer_time(graph, l, batch, rates);
    const auto& layer = graph.layers().at(static_cast<std::size_t>(l));
    if (t.compute_us >= t.memory_us) {
      flops += layer.flops * batch;
    } else {
      const double elements = static_cast<double>(graph.input_elements(l) + layer.output_elements) * batch +
                              static_cast<double>(layer.weights);
      bytes += elements * rates.element_bytes;
    }
  }
  gpu::WorkRecipe r;
  r.gemms = std::llround(flops / gemm_flops);
  const auto q = static_cast<double>(std::max<std::int64_t>(1, stream_quantum));
  r.stream_bytes = std::llround(bytes / q) * static_cast<std::int64_t>(q);
  if (r.gemms == 0 && r.stream_bytes == 0) {  // a tiny block still runs something
    if (flops / gemm_flops >= bytes / q)
      r.gemms = 1;
    else
      r.stream_bytes = static_cast<std::int64_t>(q);
  }
  return r;
}

ModelProfile profile_with_kernels(const LayerGraph& graph, const std::string& description,
                                  const KernelProfileOptions& o) {
  auto estimated = estimate_model(graph, description, {o.gpu}, o.gpu, o.estimate);
  auto& profile = estimated.profile;
  profile.description += " Block latencies measured on " + o.gpu.name +
                         " with calibrated kernels (GEMMs for compute-bound layers, a stream for the rest).";
  const double gemm_flops = 2.0 * o.gemm_size * o.gemm_size * o.gemm_size;
  const auto& cuts = estimated.boundaries;
  // A layer's work and kind are the model's: which layers are compute-bound is decided on the
  // whole GPU, and each share runs the same work in the time its share takes.
  const auto rates = device_rates(o.gpu, o.estimate.precision, 1, o.estimate.factors);
  for (auto& table : profile.block_tables) {
    const int divisor = table.share.mps_divisor().value_or(1);
    const int percent = static_cast<int>(std::lround(100.0 / divisor));
    SlotProcess slot(o.slot_command(percent), o.ready_within);
    slot.wait_ready();
    std::vector<BatchCurve> medians, p99s;
    for (std::size_t n = 0; n + 1 < cuts.size(); ++n) {
      const auto& batches = table.blocks.at(n).batches();
      std::vector<Duration> median, tail;
      for (const int b : batches) {
        const auto recipe = block_work(graph, cuts[n], cuts[n + 1], b, rates, gemm_flops, 4096);
        const auto timed = slot.time(recipe, o.repeats);
        std::vector<std::int64_t> ns;
        for (const auto& run : timed.runs)
          ns.push_back(run.device_ns);
        median.push_back(quantile(ns, 0.5));
        tail.push_back(quantile(ns, 0.99));
      }
      medians.emplace_back(batches, std::move(median));
      p99s.emplace_back(batches, std::move(tail));
    }
    table.blocks = std::move(medians);
    table.p99 = std::move(p99s);
    if (o.progress)
      o.progress("measured " + profile.name + " at " + table.share.to_string() + " on " + slot.ready().device);
  }
  return profile;
}

}  // namespace servescope::engine::gpuexec
