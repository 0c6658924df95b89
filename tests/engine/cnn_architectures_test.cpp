// The CNN builders against the totals their papers and torchvision publish (multiply-accumulates
// and parameters per 224×224 image), and the layer graph's bookkeeping of tensors live across a
// cut, skip connections included.
#include "engine/estimate/cnn_architectures.h"

#include <gtest/gtest.h>
#include <stdexcept>

#include "engine/estimate/cnn_builder.h"
#include "model/core/error.h"

using namespace servescope;
using namespace servescope::engine;

namespace {

// |actual / expected − 1| ≤ tolerance.
::testing::AssertionResult near_relative(double actual, double expected, double tolerance) {
  const double error = actual / expected - 1;
  if (error <= tolerance && error >= -tolerance) return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure() << actual << " is " << 100 * error << " % off " << expected << " (allowed "
                                       << 100 * tolerance << " %)";
}

}  // namespace

TEST(EstimatorArchitectures, MultiplyAccumulatesMatchPublishedTotals) {
  // ResNet-50: 4.1 GMACs (He et al. 2016, Table 1: 3.8·10⁹ for v1; torchvision v1.5: 4.09);
  // twice that in FLOPs, since a multiply-accumulate is two.
  const auto r50 = resnet(50);
  EXPECT_TRUE(near_relative(r50.multiply_accumulates(), 4.09e9, 0.01));
  EXPECT_TRUE(near_relative(r50.total_flops(), 8.2e9, 0.02));                       // + pooling and residual additions
  EXPECT_TRUE(near_relative(resnet(101).multiply_accumulates(), 7.80e9, 0.01));     // torchvision: 7.80
  EXPECT_TRUE(near_relative(vgg16().multiply_accumulates(), 15.47e9, 0.01));        // torchvision: 15.47
  EXPECT_TRUE(near_relative(mobilenet_v2().multiply_accumulates(), 0.30e9, 0.03));  // Sandler et al.: 300 M
  // torchvision's fcn_resnet50 at 520×520 with 21 classes: 152.72 GMACs, which include the
  // auxiliary FCN head on layer3 (3×3 1024→256, 1×1 256→21 at 65×65) that inference never runs.
  const double aux = (9.0 * 1024 * 256 + 256.0 * 21) * 65 * 65;
  EXPECT_TRUE(near_relative(fcn_resnet(50, 520, 520, 21).multiply_accumulates() + aux, 152.72e9, 0.01));
}

TEST(EstimatorArchitectures, ParametersMatchPublishedCounts) {
  // Batch norm folded into a bias per channel, so a little under the published counts, which
  // also hold the running statistics.
  EXPECT_TRUE(near_relative(static_cast<double>(resnet(50).total_weights()), 25.557e6, 0.01));
  EXPECT_TRUE(near_relative(static_cast<double>(resnet(101).total_weights()), 44.549e6, 0.01));
  EXPECT_TRUE(near_relative(static_cast<double>(vgg16().total_weights()), 138.358e6, 0.001));
  EXPECT_TRUE(near_relative(static_cast<double>(mobilenet_v2().total_weights()), 3.505e6, 0.01));
}

TEST(EstimatorArchitectures, ShapesFollowThePapers) {
  const auto r50 = resnet(50);
  EXPECT_EQ(r50.size(), 72);                            // 53 convolutions, 16 additions, 2 pools, 1 fully connected
  EXPECT_EQ(r50.input_elements(r50.size() - 1), 2048);  // global pool of 2048 × 7 × 7
  EXPECT_EQ(r50.layers().back().output_elements, 1000);
  // The dilated FCN keeps 1/8 of the input resolution after the stem: layer4 is 2048 × 64 × 128.
  const auto fcn = fcn_resnet(50);
  const int layer4 = fcn.find("layer4.2.add");
  ASSERT_GE(layer4, 0);
  EXPECT_EQ(fcn.layers()[static_cast<std::size_t>(layer4)].output_elements, 2048 * 64 * 128);
  EXPECT_EQ(fcn.layers().back().output_elements, 19 * 512 * 1024);
  // Depthwise convolutions are recognised as such.
  int depthwise = 0;
  const auto mobilenet = mobilenet_v2();
  for (const auto& l : mobilenet.layers())
    depthwise += l.kind == LayerKind::DepthwiseConvolution;
  EXPECT_EQ(depthwise, 17);
}

TEST(EstimatorArchitectures, LiveTensorsIncludeSkipConnections) {
  CnnBuilder net("toy", 4, 8, 8);                                                  // input: 256 elements
  const auto a = net.conv("a", net.input(), {.out_channels = 8});                  // 512
  const auto b = net.conv("b", a, {.out_channels = 8, .kernel = 3});               // 512
  const auto c = net.conv("c", b, {.out_channels = 8, .kernel = 3, .stride = 2});  // 128
  const auto down = net.conv("down", a, {.out_channels = 8, .stride = 2});         // 128, reads a again
  net.add("add", c, down);                                                         // 128
  const auto graph = net.take();
  // Cut j sits before layer j: [input | a | b | c | down | add | output].
  EXPECT_EQ(graph.live_elements(), (std::vector<std::int64_t>{256, 512, 512 + 512, 512 + 128, 128 + 128, 128}));
  EXPECT_EQ(graph.input_elements(3), 512);  // down reads a
  EXPECT_EQ(graph.input_elements(4), 256);  // add reads c and down
  // In a ResNet bottleneck, a cut before the addition carries both the branch and the shortcut.
  const auto r50 = resnet(50);
  const int add = r50.find("layer1.1.add");
  ASSERT_GE(add, 0);
  EXPECT_EQ(r50.live_elements()[static_cast<std::size_t>(add)], 2 * 256 * 56 * 56);
}

TEST(EstimatorArchitectures, RejectsWhatIsNotAnArchitecture) {
  try {
    find_architecture("alexnet");
    FAIL() << "no exception";
  } catch (const QueryError& e) {
    EXPECT_NE(std::string(e.what()).find("unknown architecture 'alexnet'"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("resnet50, resnet101, vgg16, mobilenet_v2, fcn_resnet50"), std::string::npos)
        << e.what();
  }
  EXPECT_EQ(find_architecture("VGG16").id, "vgg16");
  EXPECT_THROW(resnet(34), std::invalid_argument);
  LayerGraph g("g", 10);
  EXPECT_THROW(g.add(Layer{"forward", LayerKind::Elementwise, 1, 0, 10, {0}}), std::invalid_argument);
  EXPECT_THROW(g.add(Layer{"nothing", LayerKind::Elementwise, 1, 0, 10, {}}), std::invalid_argument);
}
