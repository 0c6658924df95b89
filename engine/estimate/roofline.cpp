#include "engine/estimate/roofline.h"

#include <algorithm>

#include "model/core/error.h"
#include "model/core/text.h"

namespace servescope::engine {
namespace {

constexpr std::string_view kFp16Purpose = "the roofline estimator at fp16 precision";

}  // namespace

std::string_view to_string(Precision precision) {
  return precision == Precision::Fp16 ? "fp16" : "fp32";
}

std::optional<Precision> parse_precision(std::string_view text) {
  for (const auto p : {Precision::Fp16, Precision::Fp32})
    if (to_string(p) == text) return p;
  return std::nullopt;
}

bool uses_tensor_cores(const GpuSpec& gpu, Precision precision) {
  if (precision != Precision::Fp16) return false;
  require_figures(gpu, {GpuFigure::Fp32Tflops, GpuFigure::Fp16Tflops}, kFp16Purpose);
  return gpu.fp16_tflops > gpu.fp32_tflops;
}

int element_bytes(const GpuSpec& gpu, Precision precision) {
  return uses_tensor_cores(gpu, precision) ? 2 : 4;
}

DeviceRates device_rates(const GpuSpec& gpu, Precision precision, int divisor, const RooflineFactors& f) {
  if (divisor < 1) throw QueryError("an MPS divisor must be at least 1, got " + std::to_string(divisor));
  if (divisor > 1 && !gpu.mps)
    throw QueryError("GPU type " + quote_for_message(gpu.id) + " does not support MPS shares, so it cannot run 1/" +
                     std::to_string(divisor) + " (its catalog entry has no \"mps\": true; add it to the scenario's " +
                     "gpu_types entry if the GPU has MPS)");
  if (precision == Precision::Fp16)
    require_figures(gpu,
                    {GpuFigure::SmCount, GpuFigure::Fp32Tflops, GpuFigure::Fp16Tflops, GpuFigure::MemoryBandwidthGbs},
                    kFp16Purpose);
  else
    require_figures(gpu, {GpuFigure::SmCount, GpuFigure::Fp32Tflops, GpuFigure::MemoryBandwidthGbs},
                    "the roofline estimator");
  const double v = divisor;
  const double fma_per_us = gpu.fp32_tflops * 1e6 * f.fma_efficiency / v;  // TFLOP/s = 1e6 FLOP/µs
  DeviceRates r;
  r.matmul_flops_per_us =
      uses_tensor_cores(gpu, precision) ? gpu.fp16_tflops * 1e6 * f.tensor_core_efficiency / v : fma_per_us;
  r.vector_flops_per_us = fma_per_us;
  r.bytes_per_us = gpu.memory_bandwidth_gbs * 1e3 * f.memory_efficiency / v;  // GB/s = 1e3 B/µs
  r.sms = gpu.sm_count / v;
  r.element_bytes = element_bytes(gpu, precision);
  return r;
}

LayerTime layer_time(const LayerGraph& graph, int layer, int batch, const DeviceRates& rates,
                     const RooflineFactors& f) {
  const auto& l = graph.layers().at(static_cast<std::size_t>(layer));
  const double b = batch;
  const double flops = l.flops * b;
  const bool matmul = l.kind == LayerKind::Convolution || l.kind == LayerKind::FullyConnected;
  const double peak = matmul ? rates.matmul_flops_per_us : rates.vector_flops_per_us;
  LayerTime t;
  // Only convolutions and GEMMs need many tiles in flight to fill the SMs; depthwise, pooling and
  // element-wise kernels are bandwidth-bound streams whose fixed cost is the launch overhead.
  if (flops > 0) t.compute_us = (flops + (matmul ? f.half_saturation_flops_per_sm * rates.sms : 0.0)) / peak;
  const double elements =
      static_cast<double>(graph.input_elements(layer) + l.output_elements) * b + static_cast<double>(l.weights);
  t.memory_us = elements * rates.element_bytes / rates.bytes_per_us;
  t.total_us = std::max(t.compute_us, t.memory_us) + f.launch_overhead_us;
  return t;
}

}  // namespace servescope::engine
