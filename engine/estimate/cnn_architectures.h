// Public CNN architectures built from their published layer shapes (kernel, channels, stride,
// dilation, input size), not from measured timings: the layer graphs the profile estimator turns
// into block profiles for users without measurements, and the models of the built-in PPipe demo.
//  - ResNet-50/101: He et al., "Deep Residual Learning for Image Recognition" (CVPR 2016),
//    Table 1, with torchvision's v1.5 bottleneck (stride on the 3×3 convolution), 224×224.
//  - VGG-16: Simonyan & Zisserman (ICLR 2015), configuration D, 224×224.
//  - MobileNetV2: Sandler et al. (CVPR 2018), Table 2, width 1.0, 224×224.
//  - FCN-ResNet-50/101: Long et al.'s FCN head on a dilated ResNet of output stride 8 (torchvision
//    fcn_resnet50/101: layer3 and layer4 dilated 2 and 4 instead of strided), at Cityscapes'
//    512×1024 with 19 classes: a segmentation net whose feature maps, and so pipeline cuts, are large.
#pragma once

#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "model/arch/layer_graph.h"

namespace servescope::engine {

struct CnnArchitecture {
  std::string id;  // what --arch names and the estimated profile is called
  std::string description;
  std::function<LayerGraph()> build;
};

// Every built-in architecture, in a fixed order.
const std::vector<CnnArchitecture>& cnn_architectures();
std::string known_architectures();  // "resnet50, resnet101, …"
// The architecture with this id (case-insensitive); throws QueryError naming the known ones.
const CnnArchitecture& find_architecture(std::string_view id);

LayerGraph resnet(int depth, int height = 224, int width = 224, int classes = 1000);  // depth 50 or 101
LayerGraph vgg16(int height = 224, int width = 224, int classes = 1000);
LayerGraph mobilenet_v2(int height = 224, int width = 224, int classes = 1000);
LayerGraph fcn_resnet(int depth, int height = 512, int width = 1024, int classes = 19);

}  // namespace servescope::engine
