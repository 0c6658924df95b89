// Per-layer latency on a GPU from its datasheet figures: a roofline, max(compute time, memory
// time), plus a fixed cost per layer, with efficiency factors for what real kernels sustain.
// docs/estimator.md states the model and why each constant has its value.
//
//   compute = F·b / (P·η)  with  η = η_c · F·b / (F·b + F_½·S),  i.e.  (F·b + F_½·S) / (P·η_c)
//   memory  = ((A_in + A_out)·b + W) · e / (B·η_m)
//   latency = max(compute, memory) + t_launch
//
// F: the layer's FLOPs per sample, b: batch, P: the peak FLOP rate of the unit the layer runs on
// (tensor cores for fp16 convolutions on GPUs that have them, else the FMA pipes), S: SMs,
// F_½: the FLOPs per SM at which a convolution or GEMM reaches half its sustained peak, so its
// efficiency η grows with batch and saturates at η_c (F_½ = 0 for the other layers); A_in,
// A_out, W: input and output activations and weights in elements, e: bytes per element, B: the
// memory bandwidth, η_m: the fraction of it kernels reach.
// On a 1/v MPS share with v siblings running (how PPipe profiles vGPUs), P, S and B are each
// divided by v: a large layer is v times slower, a small one loses less.
#pragma once

#include <optional>
#include <string_view>

#include "model/arch/layer_graph.h"
#include "model/gpu/gpu_catalog.h"

namespace servescope::engine {

enum class Precision {
  Fp16,  // TensorRT-style: fp16 tensor-core kernels where the GPU has tensor cores, else fp32
  Fp32,  // fp32 everywhere, on the FMA pipes
};
std::string_view to_string(Precision precision);
std::optional<Precision> parse_precision(std::string_view text);

// Every constant of the model; docs/estimator.md gives the reasons for the defaults.
struct RooflineFactors {
  // Fraction of the dense fp16 tensor-core peak that convolutions and GEMMs sustain when fully
  // occupied: kernels stall on operand loads, epilogues and tile quantisation.
  double tensor_core_efficiency = 0.5;
  // Fraction of the FMA-pipe peak (fp32, and depthwise, pooling and element-wise work at any
  // precision) that dense kernels sustain when fully occupied.
  double fma_efficiency = 0.7;
  // FLOPs per SM at which a layer reaches half of its sustained peak (F_½ above): below it, too
  // few thread blocks are in flight to hide ramp-up, tail and latency.
  double half_saturation_flops_per_sm = 4e6;
  // Fraction of the datasheet memory bandwidth that streaming kernels reach.
  double memory_efficiency = 0.75;
  // Fixed cost of every layer in µs: kernel launch and the gap between dependent kernels.
  double launch_overhead_us = 3.0;
};

// Whether layers run on fp16 tensor cores: asked for and the GPU has them (its fp16 peak is above
// its fp32 peak; Pascal's fp16 shader rate is a fraction of fp32, so TensorRT uses fp32 there).
// For fp16 it needs both peaks: throws QueryError naming the type and the field when either is
// unknown.
bool uses_tensor_cores(const GpuSpec& gpu, Precision precision);
// Bytes per activation and weight element as the layers run: 2 on tensor cores, else 4.
int element_bytes(const GpuSpec& gpu, Precision precision);

// What a layer sees of a GPU, or of a 1/v MPS share of it while v siblings run.
struct DeviceRates {
  double matmul_flops_per_us = 0;  // sustained peak for convolutions and fully connected layers
  double vector_flops_per_us = 0;  // sustained peak for depthwise, pooling, element-wise, resize
  double bytes_per_us = 0;         // sustained memory bandwidth
  double sms = 0;                  // SMs of the share
  int element_bytes = 4;
};
// Throws QueryError for a divisor below 1, or above 1 on a GPU without MPS (or whose entry does
// not say it has MPS), or a GPU whose entry lacks a figure the roofline needs (sm_count,
// fp32_tflops, memory_bandwidth_gbs; fp16_tflops too for fp16), naming the type and the field.
DeviceRates device_rates(const GpuSpec& gpu, Precision precision, int divisor, const RooflineFactors& factors = {});

struct LayerTime {
  double compute_us = 0;
  double memory_us = 0;
  double total_us = 0;  // max(compute, memory) + launch overhead
};
LayerTime layer_time(const LayerGraph& graph, int layer, int batch, const DeviceRates& rates,
                     const RooflineFactors& factors = {});

}  // namespace servescope::engine
