// Shape arithmetic for building a LayerGraph from a network's published description: each call
// takes a tensor (channels × height × width per sample) and the layer's hyper-parameters and
// appends a layer whose FLOPs, weights and output size follow from them, the way the papers
// count them (a multiply-accumulate is 2 FLOPs; batch norm and activations are fused into the
// convolution and add nothing). Spatial sizes follow PyTorch: out = ⌊(in + 2·pad − dilation·(k − 1) − 1)
// / stride⌋ + 1, with "same" padding dilation·(k − 1)/2 for convolutions.
#pragma once

#include <cstdint>
#include <string>

#include "model/arch/layer_graph.h"

namespace servescope::engine {

// A tensor in the graph under construction: who produced it and its shape per sample.
struct Tensor {
  int layer = LayerGraph::kInput;
  int channels = 0, height = 0, width = 0;
  std::int64_t elements() const { return std::int64_t{channels} * height * width; }
};

struct ConvShape {
  int out_channels = 0;
  int kernel = 1;
  int stride = 1;
  int dilation = 1;
  int groups = 1;  // groups == in_channels == out_channels: depthwise
  bool bias = true;
};

class CnnBuilder {
 public:
  CnnBuilder(std::string name, int channels, int height, int width);

  Tensor input() const { return input_; }
  Tensor conv(const std::string& name, const Tensor& in, const ConvShape& shape);
  // Pooling with explicit kernel, stride and padding; max and average cost the same here.
  Tensor pool(const std::string& name, const Tensor& in, int kernel, int stride, int padding);
  Tensor global_average_pool(const std::string& name, const Tensor& in);
  Tensor add(const std::string& name, const Tensor& a, const Tensor& b);  // residual sum (+ ReLU)
  Tensor fully_connected(const std::string& name, const Tensor& in, int out_features);
  Tensor resize(const std::string& name, const Tensor& in, int height, int width);  // bilinear

  const LayerGraph& graph() const { return graph_; }
  LayerGraph take() { return std::move(graph_); }

 private:
  Tensor append(Layer layer, int channels, int height, int width);
  LayerGraph graph_;
  Tensor input_;
};

}  // namespace servescope::engine
