#include "engine/estimate/cnn_architectures.h"

#include <stdexcept>

#include "engine/estimate/cnn_builder.h"
#include "model/core/error.h"
#include "model/core/text.h"

namespace servescope::engine {
namespace {

std::vector<int> resnet_stage_blocks(int depth) {
  if (depth == 50) return {3, 4, 6, 3};
  if (depth == 101) return {3, 4, 23, 3};
  throw std::invalid_argument("ResNet depth must be 50 or 101, got " + std::to_string(depth));
}

// Stem, then four stages of bottlenecks (1×1 reduce, 3×3, 1×1 expand ×4, projection shortcut on
// a stage's first block). `dilated` replaces the strides of stages 3 and 4 by dilations 2 and 4,
// where a stage's first block keeps the previous dilation (torchvision's rule).
Tensor resnet_backbone(CnnBuilder& net, int depth, bool dilated) {
  Tensor x = net.conv("conv1", net.input(), {.out_channels = 64, .kernel = 7, .stride = 2});
  x = net.pool("maxpool", x, 3, 2, 1);
  const auto blocks = resnet_stage_blocks(depth);
  int dilation = 1;
  for (int stage = 0; stage < 4; ++stage) {
    const int width = 64 << stage;
    int stride = stage == 0 ? 1 : 2;
    const int previous_dilation = dilation;
    if (dilated && stage >= 2) {
      dilation *= stride;
      stride = 1;
    }
    for (int b = 0; b < blocks[static_cast<std::size_t>(stage)]; ++b) {
      const std::string prefix = "layer" + std::to_string(stage + 1) + "." + std::to_string(b) + ".";
      const int s = b == 0 ? stride : 1;
      const int d = b == 0 ? previous_dilation : dilation;
      Tensor shortcut = x;
      if (b == 0) shortcut = net.conv(prefix + "downsample", x, {.out_channels = 4 * width, .stride = s});
      Tensor y = net.conv(prefix + "conv1", x, {.out_channels = width});
      y = net.conv(prefix + "conv2", y, {.out_channels = width, .kernel = 3, .stride = s, .dilation = d});
      y = net.conv(prefix + "conv3", y, {.out_channels = 4 * width});
      x = net.add(prefix + "add", y, shortcut);
    }
  }
  return x;
}

std::string resnet_name(const char* prefix, int depth) {
  return prefix + std::to_string(depth);
}

}  // namespace

LayerGraph resnet(int depth, int height, int width, int classes) {
  CnnBuilder net(resnet_name("resnet", depth), 3, height, width);
  Tensor x = resnet_backbone(net, depth, false);
  x = net.global_average_pool("avgpool", x);
  net.fully_connected("fc", x, classes);
  return net.take();
}

LayerGraph vgg16(int height, int width, int classes) {
  CnnBuilder net("vgg16", 3, height, width);
  // Configuration D: five stages of 3×3 convolutions, each followed by a 2×2 max pool.
  const int stages[5][2] = {{64, 2}, {128, 2}, {256, 3}, {512, 3}, {512, 3}};
  Tensor x = net.input();
  for (int s = 0; s < 5; ++s) {
    for (int c = 0; c < stages[s][1]; ++c)
      x = net.conv("conv" + std::to_string(s + 1) + "_" + std::to_string(c + 1), x,
                   {.out_channels = stages[s][0], .kernel = 3});
    x = net.pool("pool" + std::to_string(s + 1), x, 2, 2, 0);
  }
  x = net.fully_connected("fc6", x, 4096);
  x = net.fully_connected("fc7", x, 4096);
  net.fully_connected("fc8", x, classes);
  return net.take();
}

LayerGraph mobilenet_v2(int height, int width, int classes) {
  CnnBuilder net("mobilenet_v2", 3, height, width);
  Tensor x = net.conv("features.0", net.input(), {.out_channels = 32, .kernel = 3, .stride = 2});
  // Table 2 of the paper: expansion t, output channels c, repeats n, first stride s.
  const int settings[7][4] = {{1, 16, 1, 1}, {6, 24, 2, 2},  {6, 32, 3, 2}, {6, 64, 4, 2},
                              {6, 96, 3, 1}, {6, 160, 3, 2}, {6, 320, 1, 1}};
  int index = 1;
  for (const auto& [t, c, n, s] : settings) {
    for (int i = 0; i < n; ++i, ++index) {
      const std::string prefix = "features." + std::to_string(index) + ".";
      const int stride = i == 0 ? s : 1;
      const int hidden = x.channels * t;
      Tensor y = x;
      if (t != 1) y = net.conv(prefix + "expand", y, {.out_channels = hidden});
      y = net.conv(prefix + "depthwise", y, {.out_channels = hidden, .kernel = 3, .stride = stride, .groups = hidden});
      y = net.conv(prefix + "project", y, {.out_channels = c});
      x = stride == 1 && x.channels == c ? net.add(prefix + "add", y, x) : y;
    }
  }
  x = net.conv("features.18", x, {.out_channels = 1280});
  x = net.global_average_pool("avgpool", x);
  net.fully_connected("classifier", x, classes);
  return net.take();
}

LayerGraph fcn_resnet(int depth, int height, int width, int classes) {
  CnnBuilder net(resnet_name("fcn_resnet", depth), 3, height, width);
  Tensor x = resnet_backbone(net, depth, true);
  // FCNHead: 3×3 convolution to 2048/4 channels, then a 1×1 classifier; bilinear up-sampling
  // back to the input size.
  x = net.conv("classifier.0", x, {.out_channels = 512, .kernel = 3});
  x = net.conv("classifier.4", x, {.out_channels = classes});
  net.resize("upsample", x, height, width);
  return net.take();
}

const std::vector<CnnArchitecture>& cnn_architectures() {
  static const std::vector<CnnArchitecture> list = {
      {"resnet50", "ResNet-50 (He et al. 2016; torchvision v1.5), 224x224, 1000 classes", [] { return resnet(50); }},
      {"resnet101", "ResNet-101 (He et al. 2016; torchvision v1.5), 224x224, 1000 classes", [] { return resnet(101); }},
      {"vgg16", "VGG-16 (Simonyan & Zisserman 2015, configuration D), 224x224, 1000 classes", [] { return vgg16(); }},
      {"mobilenet_v2", "MobileNetV2 (Sandler et al. 2018), width 1.0, 224x224, 1000 classes",
       [] { return mobilenet_v2(); }},
      {"fcn_resnet50", "FCN on a dilated ResNet-50 (output stride 8; torchvision fcn_resnet50), 512x1024, 19 classes",
       [] { return fcn_resnet(50); }},
      {"fcn_resnet101",
       "FCN on a dilated ResNet-101 (output stride 8; torchvision fcn_resnet101), 512x1024, 19 classes",
       [] { return fcn_resnet(101); }},
  };
  return list;
}

std::string known_architectures() {
  std::string out;
  for (const auto& a : cnn_architectures())
    out += (out.empty() ? "" : ", ") + a.id;
  return out;
}

const CnnArchitecture& find_architecture(std::string_view id) {
  for (const auto& a : cnn_architectures())
    if (iequals(a.id, id)) return a;
  throw QueryError("unknown architecture " + quote_for_message(id) + " (known: " + known_architectures() + ")");
}

}  // namespace servescope::engine
