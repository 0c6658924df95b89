#include "model/arch/layer_graph.h"

#include <algorithm>
#include <stdexcept>
#include <utility>

namespace servescope {

std::string_view to_string(LayerKind kind) {
  switch (kind) {
    case LayerKind::Convolution:
      return "conv";
    case LayerKind::DepthwiseConvolution:
      return "depthwise-conv";
    case LayerKind::FullyConnected:
      return "fc";
    case LayerKind::Pooling:
      return "pool";
    case LayerKind::Elementwise:
      return "elementwise";
    case LayerKind::Resize:
      return "resize";
  }
  return "?";
}

bool is_matmul(LayerKind kind) {
  return kind == LayerKind::Convolution || kind == LayerKind::DepthwiseConvolution || kind == LayerKind::FullyConnected;
}

LayerGraph::LayerGraph(std::string name, std::int64_t input_elements)
    : name_(std::move(name)), input_elements_(input_elements) {
  if (input_elements <= 0) throw std::invalid_argument("a layer graph needs a non-empty input");
}

int LayerGraph::add(Layer layer) {
  const int index = size();
  if (layer.inputs.empty()) throw std::invalid_argument("layer '" + layer.name + "' reads nothing");
  for (const int in : layer.inputs)
    if (in != kInput && (in < 0 || in >= index))
      throw std::invalid_argument("layer '" + layer.name + "' reads layer " + std::to_string(in) +
                                  ", which is not an earlier layer");
  if (!(layer.flops >= 0) || layer.weights < 0 || layer.output_elements <= 0)
    throw std::invalid_argument("layer '" + layer.name + "' has negative or empty sizes");
  layers_.push_back(std::move(layer));
  return index;
}

int LayerGraph::find(std::string_view layer_name) const {
  for (int l = 0; l < size(); ++l)
    if (layers_[static_cast<std::size_t>(l)].name == layer_name) return l;
  return -1;
}

std::int64_t LayerGraph::input_elements(int layer) const {
  std::int64_t sum = 0;
  for (const int in : layers_.at(static_cast<std::size_t>(layer)).inputs)
    sum += in == kInput ? input_elements_ : layers_[static_cast<std::size_t>(in)].output_elements;
  return sum;
}

std::vector<std::int64_t> LayerGraph::live_elements() const {
  const int n = size();
  // last_use[p + 1]: the last layer that reads producer p (p = kInput for the model input).
  std::vector<int> last_use(static_cast<std::size_t>(n) + 1, -1);
  for (int l = 0; l < n; ++l)
    for (const int in : layers_[static_cast<std::size_t>(l)].inputs)
      last_use[static_cast<std::size_t>(in + 1)] = std::max(last_use[static_cast<std::size_t>(in + 1)], l);
  if (n > 0) last_use[static_cast<std::size_t>(n)] = n;  // the model's output outlives every cut
  // A tensor produced by p is live across the cuts p+1 .. last_use (cut j sits before layer j).
  std::vector<std::int64_t> live(static_cast<std::size_t>(n) + 1, 0);
  for (int p = kInput; p < n; ++p) {
    const int until = last_use[static_cast<std::size_t>(p + 1)];
    const std::int64_t elements = p == kInput ? input_elements_ : layers_[static_cast<std::size_t>(p)].output_elements;
    for (int j = p + 1; j <= until; ++j)
      live[static_cast<std::size_t>(j)] += elements;
  }
  return live;
}

double LayerGraph::total_flops() const {
  double sum = 0;
  for (const auto& l : layers_)
    sum += l.flops;
  return sum;
}

double LayerGraph::multiply_accumulates() const {
  double sum = 0;
  for (const auto& l : layers_)
    if (is_matmul(l.kind)) sum += l.flops / 2;
  return sum;
}

std::int64_t LayerGraph::total_weights() const {
  std::int64_t sum = 0;
  for (const auto& l : layers_)
    sum += l.weights;
  return sum;
}

}  // namespace servescope
