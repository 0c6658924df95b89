// Symphony's analytic capacity (digest §4.5 and test T5): every number of Table 2 reproduces.
#include "engine/analysis/batch_capacity.h"

#include <gtest/gtest.h>

#include "model/core/error.h"
#include "model/io/document.h"

using namespace servescope;

namespace {

ModelProfile linear(const char* name, double alpha_ms, double beta_ms) {
  ModelProfile p;
  p.name = name;
  p.form = ProfileForm::Linear;
  p.linear_fits.push_back({"GTX1080Ti", GpuShare::whole(), Duration::from_ms(alpha_ms), Duration::from_ms(beta_ms), 0});
  return p;
}

}  // namespace

TEST(BatchCapacity, Table2ResNet50) {
  const auto c =
      engine::staggered_capacity(linear("ResNet50", 1.053, 5.072), "GTX1080Ti", 8, Duration::milliseconds(25));
  EXPECT_EQ(c.batch_no_coordination, 7);
  EXPECT_NEAR(c.throughput_no_coordination_rps, 4501, 0.5);
  EXPECT_EQ(c.batch_staggered, 16);
  EXPECT_NEAR(c.throughput_staggered_rps, 5839, 0.5);
}

TEST(BatchCapacity, Table2InceptionResNetV2) {
  const auto c = engine::staggered_capacity(linear("InceptionResNetV2", 5.090, 18.368), "GTX1080Ti", 8,
                                            Duration::milliseconds(70));
  EXPECT_EQ(c.batch_no_coordination, 3);
  EXPECT_NEAR(c.throughput_no_coordination_rps, 713, 0.5);
  EXPECT_EQ(c.batch_staggered, 8);
  EXPECT_NEAR(c.throughput_staggered_rps, 1083, 0.5);
}

TEST(BatchCapacity, ToyExampleAndInfeasibleModel) {
  // α 1, β 5, SLO 12 on 3 GPUs: staggered batch 4, 4/3 requests per unit per… GPU set.
  const auto toy = engine::staggered_capacity(linear("toy", 1, 5), "GTX1080Ti", 3, Duration::milliseconds(12));
  EXPECT_EQ(toy.batch_staggered, 4);
  EXPECT_NEAR(toy.throughput_staggered_rps, 4000.0 / 3.0, 1e-6);
  // Table 4's DenseNet121 on A100 cannot meet SLO/2 at any batch (b_nc = 0 in the digest).
  const auto zoo = load_profiles("builtin:zoo/symphony-a100.json");
  const auto& d121 = zoo.get("DenseNet121");
  const auto c = engine::staggered_capacity(d121, "A100", 8, *d121.default_slo);
  EXPECT_EQ(c.batch_no_coordination, 0);
  EXPECT_EQ(c.throughput_no_coordination_rps, 0);
  EXPECT_EQ(c.batch_staggered, 150);
}

TEST(BatchCapacity, ZooTablesMatchTheDigestsDerivedColumns) {
  // Digest §4.2: b_st for N = 8 of a few rows of Tables 3 and 4.
  const auto gtx = load_profiles("builtin:zoo/symphony-gtx1080ti.json");
  const auto a100 = load_profiles("builtin:zoo/symphony-a100.json");
  struct Row {
    const ProfileSet* set;
    const char* gpu;
    const char* model;
    int b_nc, b_st;
  };
  for (const auto& r :
       {Row{&gtx, "GTX1080Ti", "NASNetMobile", 3, 26}, Row{&gtx, "GTX1080Ti", "MobileNetV3Small", 13, 37},
        Row{&gtx, "GTX1080Ti", "BERT", 3, 7}, Row{&a100, "A100", "EfficientNetB0", 49, 116},
        Row{&a100, "A100", "ResNet50", 18, 47}, Row{&a100, "A100", "BERT", 3, 7}}) {
    const auto& m = r.set->get(r.model);
    const auto c = engine::staggered_capacity(m, r.gpu, 8, *m.default_slo);
    EXPECT_EQ(c.batch_no_coordination, r.b_nc) << r.model;
    EXPECT_EQ(c.batch_staggered, r.b_st) << r.model;
  }
  EXPECT_EQ(gtx.models.size(), 35u);
  EXPECT_EQ(a100.models.size(), 37u);
}

// The closed form answers "largest batch within" with the schedulers' own table: on a table it
// agrees batch by batch with the profile's interpolated latencies, and a table that does not
// start at batch 1 is refused as the schedulers refuse it, instead of guessing below the data.
TEST(BatchCapacity, LargestBatchWithinUsesTheSchedulersTable) {
  ModelProfile p;
  p.name = "table";
  p.form = ProfileForm::Table;
  p.batch_tables.push_back(
      {"A100", GpuShare::whole(),
       BatchCurve({1, 4, 8}, {Duration::milliseconds(2), Duration::milliseconds(5), Duration::milliseconds(9)})});
  for (int b = 1; b <= 8; ++b) {
    const auto at_b = p.latency({"A100", GpuShare::whole(), b, std::nullopt});
    EXPECT_EQ(engine::largest_batch_within(p, "A100", GpuShare::whole(), at_b), b);
  }
  EXPECT_EQ(engine::largest_batch_within(p, "A100", GpuShare::whole(), Duration::milliseconds(1)), 0);
  EXPECT_EQ(engine::largest_batch_within(p, "A100", GpuShare::whole(), Duration::seconds(1)), 8);
  EXPECT_EQ(engine::largest_batch_within(p, "V100", GpuShare::whole(), Duration::seconds(1)), 0);

  p.batch_tables.front().curve = BatchCurve({4, 8}, {Duration::milliseconds(5), Duration::milliseconds(9)});
  EXPECT_THROW(engine::largest_batch_within(p, "A100", GpuShare::whole(), Duration::seconds(1)), QueryError);
}
