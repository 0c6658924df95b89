#include "engine/estimate/cnn_builder.h"

#include <stdexcept>
#include <utility>

namespace servescope::engine {
namespace {

int output_size(int in, int kernel, int stride, int padding, int dilation) {
  const int out = (in + 2 * padding - dilation * (kernel - 1) - 1) / stride + 1;
  if (out < 1) throw std::invalid_argument("a layer's output would be empty");
  return out;
}

// Bilinear interpolation: four taps, each a multiply and an add, per output element.
constexpr double kResizeFlopsPerOutput = 8;

}  // namespace

CnnBuilder::CnnBuilder(std::string name, int channels, int height, int width)
    : graph_(std::move(name), std::int64_t{channels} * height * width),
      input_{LayerGraph::kInput, channels, height, width} {}

Tensor CnnBuilder::append(Layer layer, int channels, int height, int width) {
  layer.output_elements = std::int64_t{channels} * height * width;
  const int index = graph_.add(std::move(layer));
  return Tensor{index, channels, height, width};
}

Tensor CnnBuilder::conv(const std::string& name, const Tensor& in, const ConvShape& s) {
  if (s.out_channels < 1 || s.kernel < 1 || s.stride < 1 || s.dilation < 1 || s.groups < 1 ||
      in.channels % s.groups != 0 || s.out_channels % s.groups != 0)
    throw std::invalid_argument("convolution '" + name + "' has an impossible shape");
  const int padding = s.dilation * (s.kernel - 1) / 2;
  const int h = output_size(in.height, s.kernel, s.stride, padding, s.dilation);
  const int w = output_size(in.width, s.kernel, s.stride, padding, s.dilation);
  const std::int64_t per_output = std::int64_t{in.channels / s.groups} * s.kernel * s.kernel;  // MACs
  const std::int64_t outputs = std::int64_t{s.out_channels} * h * w;
  Layer layer;
  layer.name = name;
  layer.kind = s.groups > 1 && s.groups == in.channels && s.groups == s.out_channels ? LayerKind::DepthwiseConvolution
                                                                                     : LayerKind::Convolution;
  layer.flops = 2.0 * static_cast<double>(per_output) * static_cast<double>(outputs);
  layer.weights = per_output * s.out_channels + (s.bias ? s.out_channels : 0);
  layer.inputs = {in.layer};
  return append(std::move(layer), s.out_channels, h, w);
}

Tensor CnnBuilder::pool(const std::string& name, const Tensor& in, int kernel, int stride, int padding) {
  const int h = output_size(in.height, kernel, stride, padding, 1);
  const int w = output_size(in.width, kernel, stride, padding, 1);
  Layer layer{name, LayerKind::Pooling, 0, 0, 0, {in.layer}};
  layer.flops = static_cast<double>(kernel) * kernel * in.channels * h * w;  // one operation per window element
  return append(std::move(layer), in.channels, h, w);
}

Tensor CnnBuilder::global_average_pool(const std::string& name, const Tensor& in) {
  Layer layer{name, LayerKind::Pooling, static_cast<double>(in.elements()), 0, 0, {in.layer}};
  return append(std::move(layer), in.channels, 1, 1);
}

Tensor CnnBuilder::add(const std::string& name, const Tensor& a, const Tensor& b) {
  if (a.channels != b.channels || a.height != b.height || a.width != b.width)
    throw std::invalid_argument("addition '" + name + "' of tensors of different shapes");
  Layer layer{name, LayerKind::Elementwise, static_cast<double>(a.elements()), 0, 0, {a.layer, b.layer}};
  return append(std::move(layer), a.channels, a.height, a.width);
}

Tensor CnnBuilder::fully_connected(const std::string& name, const Tensor& in, int out_features) {
  const std::int64_t macs = in.elements() * out_features;
  Layer layer{name, LayerKind::FullyConnected, 2.0 * static_cast<double>(macs), macs + out_features, 0, {in.layer}};
  return append(std::move(layer), out_features, 1, 1);
}

Tensor CnnBuilder::resize(const std::string& name, const Tensor& in, int height, int width) {
  const double outputs = static_cast<double>(in.channels) * height * width;
  Layer layer{name, LayerKind::Resize, kResizeFlopsPerOutput * outputs, 0, 0, {in.layer}};
  return append(std::move(layer), in.channels, height, width);
}

}  // namespace servescope::engine
