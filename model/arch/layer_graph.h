// A CNN as an inference engine runs it, layer by layer in topological order: what each layer
// computes (FLOPs per sample), what it reads and writes (weights, input and output activations)
// and which earlier tensors it consumes, so that the tensors live across any cut — skip
// connections included — are known. It is the input of the profile estimator
// (engine/estimate/, docs/estimator.md), which turns it into block latencies and the bytes that
// cross PPipe's block boundaries (seed 000 §5.1, digest §3.3: "every tensor live across the cut").
//
// Sizes are element counts; bytes depend on the precision the model runs at, so they are asked
// for with an element size (`bytes(elements, 2)` for fp16).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace servescope {

enum class LayerKind {
  Convolution,           // dense or grouped convolution, with its batch norm and activation fused
  DepthwiseConvolution,  // one filter per channel: no tensor-core GEMM, memory-bound in practice
  FullyConnected,
  Pooling,      // max or average pooling, including global average pooling
  Elementwise,  // residual additions (with the activation that follows them fused)
  Resize,       // bilinear up-sampling
};
std::string_view to_string(LayerKind kind);
// Convolutions and fully connected layers: the ones whose work is multiply-accumulates.
bool is_matmul(LayerKind kind);

struct Layer {
  std::string name;
  LayerKind kind = LayerKind::Convolution;
  double flops = 0;                  // per sample; a multiply-accumulate counts as 2
  std::int64_t weights = 0;          // parameter elements (weights and biases)
  std::int64_t output_elements = 0;  // per sample
  std::vector<int> inputs;           // producing layers (earlier indices) or LayerGraph::kInput
};

class LayerGraph {
 public:
  static constexpr int kInput = -1;  // the model's input tensor, as a producer

  LayerGraph(std::string name, std::int64_t input_elements);

  // Appends a layer and returns its index. Throws std::invalid_argument when it reads a layer
  // that is not earlier, reads nothing, or has negative sizes.
  int add(Layer layer);

  const std::string& name() const { return name_; }
  const std::vector<Layer>& layers() const { return layers_; }
  int size() const { return static_cast<int>(layers_.size()); }
  std::int64_t model_input_elements() const { return input_elements_; }
  // The index of the layer with this name, or -1.
  int find(std::string_view layer_name) const;

  // Elements per sample that layer i reads: the sum of its inputs' outputs.
  std::int64_t input_elements(int layer) const;
  // Elements per sample of every tensor live across the cut before layer j, for j = 0..size():
  // produced before j (the model input counts as produced before layer 0) and read by a layer
  // at j or later; the last layer's output is the model's output and is live at size().
  std::vector<std::int64_t> live_elements() const;

  double total_flops() const;
  // Σ FLOPs / 2 over convolutions and fully connected layers: the "MACs" papers publish.
  double multiply_accumulates() const;
  std::int64_t total_weights() const;

 private:
  std::string name_;
  std::int64_t input_elements_ = 0;
  std::vector<Layer> layers_;
};

constexpr std::int64_t bytes(std::int64_t elements, int bytes_per_element) {
  return elements * bytes_per_element;
}

}  // namespace servescope
