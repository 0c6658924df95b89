// The importers on the published files themselves (../shared/data), skipped when absent.
#include <gtest/gtest.h>

#include "model/import/glet_import.h"
#include "model/import/nexus_import.h"
#include "model/import/ppipe_import.h"
#include "model/io/file_io.h"
#include "tests/support/test_support.h"

using namespace servescope;
namespace fs = std::filesystem;

TEST(PublishedData, EveryPpipeModelImports) {
  SERVESCOPE_REQUIRE_SHARED_DATA("PPipe/data/models/block-timing-tf32");
  const auto models = list_ppipe_models(shared_data / "PPipe");
  EXPECT_EQ(models.size(), 28u);
  for (const auto& m : models) {
    const auto p = import_ppipe_model(shared_data / "PPipe/data", m, GpuCatalog::builtin());
    EXPECT_GE(p.block_count, 9) << m;
    EXPECT_GE(p.block_tables.size(), 9u) << m;  // L4, T4, V100 × 4 shares (+ P4)
  }
  // FCN fixtures of the digest's Appendix A: V100 1/1 at bs 1 totals 8580 µs, [0,6) 4112 µs.
  const auto fcn = import_ppipe_model(shared_data / "PPipe/data", "fcn-d6_r101-d16_4xb2-40k_cityscapes-512x1024",
                                      GpuCatalog::builtin());
  EXPECT_EQ(fcn.latency({"V100", GpuShare::whole(), 1, std::nullopt}), Duration::microseconds(8580));
  EXPECT_EQ(fcn.latency({"V100", GpuShare::whole(), 1, BlockRange{0, 6}}), Duration::microseconds(4112));
  EXPECT_EQ(fcn.latency({"P4", GpuShare::whole(), 1, BlockRange{7, 10}}), Duration::microseconds(10841));
  EXPECT_EQ(fcn.latency({"T4", GpuShare::mps(2), 1, BlockRange{0, 7}}), Duration::microseconds(19116));
  EXPECT_NEAR(fcn.default_slo->to_us(), 33278.6, 0.05);
}

TEST(PublishedData, NexusProfiles) {
  SERVESCOPE_REQUIRE_SHARED_DATA("nexus/tests/data/model_db/profiles");
  int n = 0;
  for (const auto& f : fs::directory_iterator(shared_data / "nexus/tests/data/model_db/profiles/TITAN_X_(Pascal)")) {
    const auto r = import_nexus_profile(f.path().string(), GpuCatalog::builtin());
    EXPECT_EQ(r.profile.batch_tables.front().gpu, "TITANX");
    EXPECT_GT(r.profile.max_batch("TITANX", GpuShare::whole()), 1);
    ++n;
  }
  EXPECT_EQ(n, 4);
  const auto vgg = import_nexus_profile(
      (shared_data / "nexus/tests/data/model_db/profiles/TITAN_X_(Pascal)/caffe:vgg16:1.txt").string(),
      GpuCatalog::builtin());
  EXPECT_EQ(vgg.profile.name, "vgg16");
  EXPECT_EQ(vgg.profile.latency({"TITANX", GpuShare::whole(), 1, std::nullopt}), Duration::from_us(6277.4));
  EXPECT_GE(vgg.monotone_fixes, 1);  // batch 5 is measured faster than batch 4
}

TEST(PublishedData, GletUtilisationAndCoefficients) {
  SERVESCOPE_REQUIRE_SHARED_DATA("glet/resource/2080ti");
  const auto dir = shared_data / "glet/resource/2080ti";
  const auto r = import_glet((dir / "UTIL.CSV").string(), (dir / "INT_MODEL_CONSTANT.CSV").string(), "", "2080ti",
                             GpuCatalog::builtin());
  EXPECT_EQ(r.profiles.utilisation.size(), 9u);
  ASSERT_EQ(r.profiles.interference.size(), 1u);
  // The published RTX 2080 Ti coefficients (glet digest §4.7).
  EXPECT_NEAR(r.profiles.interference[0].l2_self, 0.11291, 1e-5);
  EXPECT_NEAR(r.profiles.interference[0].l2_other, 0.71596, 1e-5);
  EXPECT_NEAR(r.profiles.interference[0].dram_self, 0.35487, 1e-5);
  EXPECT_NEAR(r.profiles.interference[0].dram_other, 0.08820, 1e-5);
  EXPECT_NEAR(r.profiles.interference[0].constant, 0.89537, 1e-5);
}

TEST(PublishedData, GpuletPartitionTables) {
  SERVESCOPE_REQUIRE_SHARED_DATA("Gpulet-0909wlgur/data/inference.csv");
  const auto path = (shared_data / "Gpulet-0909wlgur/data/inference.csv").string();
  const auto r = parse_partition_latency_csv(read_text_file(path), path, "RTX2080Ti");
  EXPECT_EQ(r.profiles.models.size(), 10u);
  for (const auto& m : r.profiles.models)
    EXPECT_EQ(m.batch_tables.size(), 6u) << m.name;  // 20..100 %
  const auto& vgg = r.profiles.get("vgg16");
  EXPECT_EQ(vgg.latency({"RTX2080Ti", GpuShare::percent(20), 1, std::nullopt}), Duration::from_us(4535.2));
  EXPECT_EQ(vgg.max_batch("RTX2080Ti", GpuShare::percent(60)), 64);
}
