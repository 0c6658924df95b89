// Block profiles for users without measurements (docs/estimator.md): every layer of a CNN is
// timed by the roofline (roofline.h) on each GPU type, MPS share and batch size; the layers are
// grouped into N blocks of roughly equal runtime on a reference GPU by PPipe's greedy
// pre-partitioning (prepartition.h; seed 000 §5.1, digest §3.3), and the result is a "blocks"
// ModelProfile shaped like the PPipe artifact's: MPS divisors 1–4 (1 only without MPS), batch
// 1..8 at v = 1, 1..4 at v = 2, 1..2 at v = 3 and 4; the bytes of every tensor live across each
// cut in fp16; default SLO = 5 × the whole model's latency on the reference GPU at batch 1.
#pragma once

#include <string>
#include <vector>

#include "engine/estimate/roofline.h"
#include "engine/ppipe/prepartition.h"
#include "model/arch/layer_graph.h"
#include "model/gpu/gpu_catalog.h"
#include "model/profile/model_profile.h"

namespace servescope::engine {

struct EstimateOptions {
  int blocks = 10;                   // N (PPipe: 10)
  std::string reference_gpu = "L4";  // pre-partitioning and the SLO (PPipe: L4)
  Precision precision = Precision::Fp16;
  double slo_multiplier = 5.0;  // default SLO = this × reference latency at batch 1
  RooflineFactors factors;
};

// Bytes per element of the activations that cross a pipeline cut: PPipe sends fp16 feature maps.
inline constexpr int kCutElementBytes = 2;

// The MPS divisors profiled on a GPU type: 1..4 where it supports MPS, else 1 (also where its
// catalog entry leaves `mps` out: unknown counts as no MPS).
std::vector<int> estimated_divisors(const GpuSpec& gpu);
// The largest batch profiled at divisor v: 8 at v = 1, 4 at v = 2, 2 at v = 3 and 4.
int estimated_max_batch(int divisor);

// Every layer's latency in µs on a 1/divisor share of `gpu` at `batch`.
std::vector<double> layer_latencies_us(const LayerGraph& graph, const GpuSpec& gpu, int divisor, int batch,
                                       const EstimateOptions& options = {});

struct EstimatedModel {
  ModelProfile profile;
  BlockBoundaries boundaries;  // layer index where each block starts, then the layer count
};

// One model's block profile on `gpus` (each with its divisors and batch sizes); the description
// gets the name of each block's first layer appended. Throws
// QueryError when the graph has fewer layers than blocks or a GPU (or the reference) lacks a
// figure the roofline needs, naming the type and the field (device_rates).
EstimatedModel estimate_model(const LayerGraph& graph, const std::string& description, const std::vector<GpuSpec>& gpus,
                              const GpuSpec& reference, const EstimateOptions& options = {});

// Profiles of built-in architectures (cnn_architectures.h) by id on catalog GPUs by id or alias.
// Throws QueryError naming the known architectures or the catalog's ids for an unknown one, for a
// name given twice, and as estimate_model for a type without the figures.
ProfileSet estimate_profiles(const std::vector<std::string>& architectures, const std::vector<std::string>& gpus,
                             const GpuCatalog& catalog, const EstimateOptions& options = {});

}  // namespace servescope::engine
