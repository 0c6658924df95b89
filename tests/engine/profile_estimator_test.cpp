// The profile estimator (docs/estimator.md): the roofline's limits (compute-bound layers follow
// the FLOP peak, memory-bound ones the bandwidth, a 1/v MPS share is ≈ v times slower on large
// layers), monotone curves, and block profiles shaped like the PPipe artifact's whose rows sum
// the layers and whose cuts carry every live tensor in fp16.
#include "engine/estimate/profile_estimator.h"

#include <gtest/gtest.h>
#include <numeric>

#include "engine/estimate/cnn_architectures.h"
#include "engine/estimate/cnn_builder.h"
#include "model/core/error.h"

using namespace servescope;
using namespace servescope::engine;

namespace {

const GpuSpec& gpu(const char* id) {
  return *GpuCatalog::builtin().find(id);
}

// One 3×3 convolution of 512 → 512 channels on a 64 × 128 map (38.7 GFLOP per sample): compute-bound.
LayerGraph big_conv() {
  CnnBuilder net("big", 512, 64, 128);
  net.conv("conv", net.input(), {.out_channels = 512, .kernel = 3});
  return net.take();
}

// An addition of two 256 × 128 × 256 maps: one FLOP per 12 bytes, memory-bound everywhere.
LayerGraph big_add() {
  CnnBuilder net("add", 256, 128, 256);
  const auto a = net.conv("a", net.input(), {.out_channels = 256});
  net.add("sum", a, net.input());
  return net.take();
}

double sum_us(const std::vector<double>& v, int begin, int end) {
  return std::accumulate(v.begin() + begin, v.begin() + end, 0.0);
}

}  // namespace

TEST(EstimatorRoofline, ComputeBoundLayersFollowThePeakAndMemoryBoundOnesTheBandwidth) {
  const RooflineFactors f;
  GpuSpec fast = gpu("V100");
  GpuSpec twice = fast;
  twice.fp16_tflops *= 2;
  const auto conv = big_conv();
  const auto t1 = layer_time(conv, 0, 4, device_rates(fast, Precision::Fp16, 1));
  const auto t2 = layer_time(conv, 0, 4, device_rates(twice, Precision::Fp16, 1));
  EXPECT_GT(t1.compute_us, 10 * t1.memory_us);
  EXPECT_NEAR(t2.compute_us, t1.compute_us / 2, 1e-9 * t1.compute_us);
  EXPECT_NEAR(t1.total_us, t1.compute_us + f.launch_overhead_us, 1e-9);
  // At saturation the time is the FLOPs at η_c of the peak: 4 × 38.7 GFLOP at 62.5 TFLOP/s.
  EXPECT_NEAR(t1.compute_us, 4 * conv.total_flops() / (125e6 * 0.5), 0.01 * t1.compute_us);

  GpuSpec wide = fast;
  wide.memory_bandwidth_gbs *= 2;
  const auto add = big_add();
  const auto m1 = layer_time(add, 1, 4, device_rates(fast, Precision::Fp16, 1));
  const auto m2 = layer_time(add, 1, 4, device_rates(wide, Precision::Fp16, 1));
  EXPECT_GT(m1.memory_us, 10 * m1.compute_us);
  EXPECT_NEAR(m2.memory_us, m1.memory_us / 2, 1e-9 * m1.memory_us);
  // Three maps of 8.4 M fp16 elements each per sample, at 75 % of 900 GB/s.
  EXPECT_NEAR(m1.memory_us, 4 * 3 * 256 * 128 * 256 * 2 / (900e3 * 0.75), 1e-6 * m1.memory_us);
}

TEST(EstimatorRoofline, PrecisionPicksTensorCoresOnlyWhereTheyExist) {
  EXPECT_TRUE(uses_tensor_cores(gpu("V100"), Precision::Fp16));
  EXPECT_FALSE(uses_tensor_cores(gpu("P4"), Precision::Fp16));  // Pascal: fp16 at 1/64 rate, fp32 kernels
  EXPECT_FALSE(uses_tensor_cores(gpu("V100"), Precision::Fp32));
  EXPECT_EQ(element_bytes(gpu("V100"), Precision::Fp16), 2);
  EXPECT_EQ(element_bytes(gpu("P4"), Precision::Fp16), 4);
  const auto p4_16 = device_rates(gpu("P4"), Precision::Fp16, 1);
  const auto p4_32 = device_rates(gpu("P4"), Precision::Fp32, 1);
  EXPECT_EQ(p4_16.matmul_flops_per_us, p4_32.matmul_flops_per_us);
  EXPECT_DOUBLE_EQ(p4_32.matmul_flops_per_us, 5.5e6 * 0.7);
  EXPECT_DOUBLE_EQ(device_rates(gpu("V100"), Precision::Fp32, 1).matmul_flops_per_us, 15.7e6 * 0.7);
  EXPECT_EQ(parse_precision("fp32"), Precision::Fp32);
  EXPECT_FALSE(parse_precision("int8"));
}

TEST(EstimatorRoofline, AnMpsShareIsAboutVTimesSlowerOnLargeLayers) {
  const auto conv = big_conv();
  const auto add = big_add();
  for (const int v : {2, 3, 4}) {
    const auto whole = layer_time(conv, 0, 1, device_rates(gpu("V100"), Precision::Fp16, 1)).total_us;
    const auto share = layer_time(conv, 0, 1, device_rates(gpu("V100"), Precision::Fp16, v)).total_us;
    EXPECT_NEAR(share / whole, v, 0.02 * v);  // fixed costs do not scale
    const auto mem_whole = layer_time(add, 1, 1, device_rates(gpu("T4"), Precision::Fp16, 1)).total_us;
    const auto mem_share = layer_time(add, 1, 1, device_rates(gpu("T4"), Precision::Fp16, v)).total_us;
    EXPECT_NEAR(mem_share / mem_whole, v, 0.02 * v);
  }
  // A small layer is dominated by fixed costs: its share is slower, but by less than v.
  const auto fc = resnet(50);
  const int last = fc.size() - 1;
  const auto whole = layer_time(fc, last, 1, device_rates(gpu("V100"), Precision::Fp16, 1)).total_us;
  const auto quarter = layer_time(fc, last, 1, device_rates(gpu("V100"), Precision::Fp16, 4)).total_us;
  EXPECT_GT(quarter, whole);
  EXPECT_LT(quarter, 4 * whole);
  EXPECT_THROW(device_rates(gpu("P4"), Precision::Fp16, 2), QueryError);  // no MPS on Pascal
  EXPECT_THROW(device_rates(gpu("V100"), Precision::Fp16, 0), QueryError);
}

TEST(EstimatorRoofline, LatencyGrowsWithBatchAndEfficiencySaturates) {
  for (const auto& arch : cnn_architectures()) {
    const auto graph = arch.build();
    for (const char* id : {"V100", "P4", "L4", "A100"}) {
      std::vector<double> previous(static_cast<std::size_t>(graph.size()), 0.0);
      for (int b = 1; b <= 8; ++b) {
        const auto layers = layer_latencies_us(graph, gpu(id), 1, b);
        for (std::size_t l = 0; l < layers.size(); ++l)
          ASSERT_GE(layers[l], previous[l]) << arch.id << " layer " << l << " on " << id << " at batch " << b;
        previous = layers;
      }
    }
  }
  // Throughput improves with batch but by less than the batch: efficiency grows and saturates.
  const auto r50 = resnet(50);
  const double b1 = sum_us(layer_latencies_us(r50, gpu("V100"), 1, 1), 0, r50.size());
  const double b8 = sum_us(layer_latencies_us(r50, gpu("V100"), 1, 8), 0, r50.size());
  EXPECT_GT(b8, 1.5 * b1);
  EXPECT_LT(b8, 8 * b1 / 2);
}

TEST(EstimatorProfiles, BlocksSumTheLayersAndFollowTheArtifactsShape) {
  const auto graph = resnet(101);
  EstimateOptions options;
  const auto est = estimate_model(graph, "ResNet-101", {gpu("V100"), gpu("P4")}, gpu("L4"), options);
  const auto& p = est.profile;
  EXPECT_EQ(p.form, ProfileForm::Blocks);
  EXPECT_EQ(p.block_count, 10);
  ASSERT_EQ(est.boundaries.size(), 11u);
  EXPECT_EQ(est.boundaries.front(), 0);
  EXPECT_EQ(est.boundaries.back(), graph.size());
  EXPECT_EQ(est.boundaries, greedy_prepartition(layer_latencies_us(graph, gpu("L4"), 1, 1), 10));
  // V100 at 1, 1/2, 1/3, 1/4 with batches up to 8, 4, 2, 2; P4 (no MPS) whole only.
  ASSERT_EQ(p.block_tables.size(), 5u);
  const std::vector<std::pair<std::string, int>> expected = {
      {"V100", 8}, {"V100", 4}, {"V100", 2}, {"V100", 2}, {"P4", 8}};
  for (std::size_t t = 0; t < p.block_tables.size(); ++t) {
    const auto& table = p.block_tables[t];
    EXPECT_EQ(table.gpu, expected[t].first);
    const int v = t < 4 ? static_cast<int>(t) + 1 : 1;
    EXPECT_EQ(table.share, GpuShare::mps(v));
    ASSERT_EQ(table.blocks.size(), 10u);
    for (int b = 1; b <= expected[t].second; ++b) {
      const auto layers = layer_latencies_us(graph, gpu(table.gpu.c_str()), v, b, options);
      for (std::size_t n = 0; n < 10; ++n) {
        const auto& curve = table.blocks[n];
        EXPECT_EQ(curve.max_batch(), expected[t].second);
        EXPECT_NEAR(curve.at(b)->to_us(), sum_us(layers, est.boundaries[n], est.boundaries[n + 1]), 0.5);
        if (b > 1) {
          EXPECT_GE(*curve.at(b), *curve.at(b - 1));
        }
      }
    }
  }
  // Default SLO: 5 × the whole model on the reference GPU at batch 1.
  const double reference = sum_us(layer_latencies_us(graph, gpu("L4"), 1, 1, options), 0, graph.size());
  EXPECT_NEAR(p.default_slo->to_us(), 5 * reference, 0.5);
  EXPECT_NE(p.description.find("blocks start at conv1, "), std::string::npos) << p.description;
}

TEST(EstimatorProfiles, CutsCarryEveryLiveTensorInFp16) {
  for (const char* id : {"resnet50", "fcn_resnet50", "mobilenet_v2"}) {
    const auto graph = find_architecture(id).build();
    const auto est = estimate_model(graph, id, {gpu("T4")}, gpu("L4"));
    const auto live = graph.live_elements();
    ASSERT_EQ(est.profile.boundary_bytes.size(), 9u);
    for (std::size_t j = 1; j < 10; ++j)
      EXPECT_EQ(est.profile.boundary_bytes[j - 1], 2 * live[static_cast<std::size_t>(est.boundaries[j])]) << id;
  }
  // The segmentation net's cuts are megabytes: everything after the stem is at 1/8 resolution.
  const auto fcn = estimate_model(fcn_resnet(50), "", {gpu("T4")}, gpu("L4"));
  for (const auto bytes : fcn.profile.boundary_bytes)
    EXPECT_GE(bytes, 4 << 20);
}

TEST(EstimatorProfiles, ProfileSetsNameWhatIsWrong) {
  const auto& catalog = GpuCatalog::builtin();
  const auto set = estimate_profiles({"vgg16", "MobileNet_V2"}, {"V100", "tesla p4"}, catalog);
  ASSERT_EQ(set.models.size(), 2u);
  EXPECT_EQ(set.models[1].name, "mobilenet_v2");
  EXPECT_EQ(set.models[0].configurations().size(), 5u);
  EXPECT_NE(set.source.find("not measurements"), std::string::npos);
  auto message = [&](const std::vector<std::string>& archs, const std::vector<std::string>& gpus,
                     const EstimateOptions& options = {}) -> std::string {
    try {
      estimate_profiles(archs, gpus, catalog, options);
    } catch (const QueryError& e) {
      return e.what();
    }
    return "no error";
  };
  EXPECT_NE(message({"alexnet"}, {"V100"}).find("unknown architecture 'alexnet' (known: resnet50"), std::string::npos);
  EXPECT_NE(message({"vgg16"}, {"K80"}).find("unknown GPU type 'K80' (known: P4, T4"), std::string::npos);
  EXPECT_NE(message({"vgg16"}, {"V100", "Tesla V100"}).find("listed twice"), std::string::npos);
  EXPECT_NE(message({"vgg16", "vgg16"}, {"V100"}).find("listed twice"), std::string::npos);
  EstimateOptions too_many;
  too_many.blocks = 22;
  EXPECT_NE(message({"vgg16"}, {"V100"}, too_many).find("cannot cut 21 layers into 22 blocks"), std::string::npos);
}

// A scenario's GPU type may carry only a price (docs/formats.md "GPU catalog"). The estimator needs
// the datasheet figures and says which type lacks which one, never dividing by an unknown 0;
// unknown mps is no MPS (whole GPUs only).
TEST(EstimatorProfiles, ATypeWithoutFiguresNamesTheMissingField) {
  GpuSpec rented;
  rented.id = "Rented";
  rented.price_per_hour = 1.5;
  auto message = [](auto&& f) -> std::string {
    try {
      f();
    } catch (const QueryError& e) {
      return e.what();
    }
    return "no error";
  };
  const auto fp32 = message([&] { (void)device_rates(rented, Precision::Fp32, 1); });
  EXPECT_EQ(fp32,
            "GPU type 'Rented' has no sm_count, fp32_tflops and memory_bandwidth_gbs, which the roofline estimator "
            "needs: add them to the scenario's gpu_types entry for 'Rented'");
  EXPECT_NE(message([&] { (void)device_rates(rented, Precision::Fp16, 1); })
                .find("has no sm_count, fp32_tflops, fp16_tflops and memory_bandwidth_gbs, which the roofline "
                      "estimator at fp16 precision needs"),
            std::string::npos);
  EXPECT_EQ(estimated_divisors(rented), std::vector<int>{1});
  const auto mps = message([&] { (void)device_rates(rented, Precision::Fp32, 2); });
  EXPECT_NE(mps.find("GPU type 'Rented' does not support MPS shares, so it cannot run 1/2"), std::string::npos) << mps;
  EXPECT_NE(mps.find("gpu_types"), std::string::npos) << mps;

  // Everything but the fp16 peak: fp32 estimates, fp16 asks for fp16_tflops (it decides tensor cores).
  GpuSpec no_fp16 = gpu("V100");
  no_fp16.id = "NoFp16";
  no_fp16.fp16_tflops = 0;
  EXPECT_GT(layer_time(big_conv(), 0, 1, device_rates(no_fp16, Precision::Fp32, 1)).total_us, 0);
  EXPECT_FALSE(uses_tensor_cores(no_fp16, Precision::Fp32));
  const auto fp16 = message([&] { (void)uses_tensor_cores(no_fp16, Precision::Fp16); });
  EXPECT_EQ(fp16,
            "GPU type 'NoFp16' has no fp16_tflops, which the roofline estimator at fp16 precision needs: add it to the "
            "scenario's gpu_types entry for 'NoFp16'");

  // Through a scenario's catalog, as the GUI's "Add estimated models" calls it.
  auto catalog = GpuCatalog::builtin();
  catalog.add_or_replace(rented);
  const auto whole = message([&] { (void)estimate_profiles({"resnet50"}, {"V100", "Rented"}, catalog); });
  EXPECT_NE(whole.find("GPU type 'Rented' has no sm_count"), std::string::npos) << whole;
  EXPECT_NE(whole.find("gpu_types entry for 'Rented'"), std::string::npos) << whole;
  EstimateOptions on_rented;
  on_rented.reference_gpu = "Rented";
  const auto reference = message([&] { (void)estimate_profiles({"resnet50"}, {"V100"}, catalog, on_rented); });
  EXPECT_NE(reference.find("GPU type 'Rented' has no sm_count"), std::string::npos) << reference;
}
