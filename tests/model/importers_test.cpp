#include <gtest/gtest.h>

#include "model/core/error.h"
#include "model/import/alphabeta_import.h"
#include "model/import/glet_import.h"
#include "model/import/nexus_import.h"
#include "model/import/ppipe_import.h"
#include "model/io/trace_file.h"
#include "tests/model/csv_fixtures.h"
#include "tests/support/test_support.h"

using namespace servescope;

namespace {

void write_ppipe_fixture(const test::TempDir& dir) {
  dir.write("data/models/block-timing-tf32/toy-net_v2-V100-1.csv", test::kPpipeTimingV100);
  dir.write("data/models/block-timing-tf32/toy-net_v2-V100-2.csv", test::kPpipeTimingV100Half);
  dir.write("data/models/block-timing-tf32/toy-net_v2-P4-1.csv", test::kPpipeTimingP4);
  dir.write("data/prepartition_mappings/toy-net_v2/contraction_trans-size_ilpprepart10-0.5-2.0.csv",
            test::kPpipeTransSizes);
  dir.write("data/models/model-profile-tf32/toy-net_v2/L4-1/1/toy-net_v2-L4.engine.timing.json", test::kPpipeL4Timing);
}

}  // namespace

TEST(PpipeImport, ReadsBlockTablesBoundariesAndSlo) {
  test::TempDir dir;
  write_ppipe_fixture(dir);
  // The repository root and its data/ folder are both accepted.
  EXPECT_EQ(list_ppipe_models(dir.path()), std::vector<std::string>{"toy-net_v2"});
  const auto p = import_ppipe_model(dir.path() / "data", "toy-net_v2", GpuCatalog::builtin());
  EXPECT_EQ(p.form, ProfileForm::Blocks);
  EXPECT_EQ(p.block_count, 3);
  EXPECT_EQ(p.boundary_bytes, (std::vector<std::int64_t>{1048576, 2097152}));
  EXPECT_EQ(p.block_tables.size(), 3u);
  EXPECT_EQ(p.latency({"V100", GpuShare::whole(), 2, BlockRange{0, 2}}), Duration::microseconds(570));
  EXPECT_EQ(p.latency({"V100", GpuShare::mps(2), 4, BlockRange{2, 3}}), Duration::microseconds(290));
  EXPECT_EQ(p.latency({"P4", GpuShare::whole(), 1, std::nullopt}), Duration::microseconds(1510));
  // SLO = 5 × mean L4 computeMs = 5 × 7 ms.
  ASSERT_TRUE(p.default_slo);
  EXPECT_EQ(*p.default_slo, Duration::milliseconds(35));
}

TEST(PpipeImport, ExplainsWhatIsMissing) {
  test::TempDir dir;
  write_ppipe_fixture(dir);
  EXPECT_THROW(import_ppipe_model(dir.path(), "other", GpuCatalog::builtin()), InputError);
  dir.write("data/prepartition_mappings/toy-net_v2/contraction_trans-size_other.csv", test::kPpipeTransSizes);
  try {
    import_ppipe_model(dir.path(), "toy-net_v2", GpuCatalog::builtin());
    FAIL();
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("--prepartition"), std::string::npos) << e.what();
  }
  PpipeImportOptions opts;
  opts.prepartition = "other";
  EXPECT_NO_THROW(import_ppipe_model(dir.path(), "toy-net_v2", GpuCatalog::builtin(), opts));
  dir.write("data/models/block-timing-tf32/toy-net_v2-T4-1.csv", "1,2\n3,4\n");
  try {
    import_ppipe_model(dir.path(), "toy-net_v2", GpuCatalog::builtin(), opts);
    FAIL();
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("has 2 blocks"), std::string::npos) << e.what();
  }
  EXPECT_THROW(list_ppipe_models(dir.path() / "nowhere"), InputError);
}

TEST(NexusImport, ReadsForwardLatencyAndCpuCosts) {
  const auto r = parse_nexus_profile(test::kNexusProfile, "toy.txt", GpuCatalog::builtin());
  EXPECT_EQ(r.profile.name, "toynet");
  EXPECT_EQ(r.profile.form, ProfileForm::Table);
  EXPECT_EQ(r.profile.batch_tables.front().gpu, "TITANX");
  EXPECT_EQ(r.profile.latency({"TITANX", GpuShare::whole(), 1, std::nullopt}), Duration::from_us(1000.5));
  EXPECT_EQ(r.monotone_fixes, 1);  // batch 3 was faster than batch 2
  EXPECT_EQ(r.profile.latency({"TITANX", GpuShare::whole(), 3, std::nullopt}), Duration::microseconds(1800));
  EXPECT_EQ(r.profile.preprocess, Duration::from_us(300.25));
  EXPECT_EQ(r.profile.postprocess, Duration::from_us(1.5));
}

TEST(AlphaBetaImport, ReadsFitsAndSlos) {
  const auto set = parse_alphabeta_csv(test::kAlphaBeta, "ab.csv", GpuCatalog::builtin());
  ASSERT_EQ(set.models.size(), 2u);
  const auto& r50 = set.get("ResNet50");
  EXPECT_EQ(r50.linear_fits.size(), 2u);
  EXPECT_EQ(r50.linear_fits[0].gpu, "GTX1080Ti");
  EXPECT_EQ(r50.latency({"GTX1080Ti", GpuShare::whole(), 16, std::nullopt}), Duration::microseconds(21920));
  EXPECT_EQ(*r50.default_slo, Duration::milliseconds(25));
  const auto us = parse_alphabeta_csv("gpu,model,beta_us,alpha_us\nA100,m,5000,250\n", "x.csv", GpuCatalog::builtin());
  EXPECT_EQ(us.get("m").latency({"A100", GpuShare::whole(), 2, std::nullopt}), Duration::microseconds(5500));
}

TEST(GletImport, UtilisationInterferenceAndPartitionTables) {
  const auto util = parse_glet_utilisation(test::kGletUtil, "UTIL.CSV", "RTX2080Ti");
  ASSERT_EQ(util.size(), 2u);
  EXPECT_EQ(util[0].model, "resnet50");
  ASSERT_EQ(util[0].samples.size(), 2u);
  EXPECT_EQ(util[0].samples[0].batch, 1);  // sorted by batch
  EXPECT_DOUBLE_EQ(util[0].samples[1].l2_util, 0.2025);
  const auto intf = parse_glet_interference(test::kGletInterference, "INT.CSV", "RTX2080Ti");
  EXPECT_DOUBLE_EQ(intf.l2_other, 0.71);
  EXPECT_DOUBLE_EQ(intf.constant, 0.895);
  const auto part = parse_partition_latency_csv(test::kPartitionLatency, "inference.csv", "RTX2080Ti");
  ASSERT_EQ(part.profiles.models.size(), 2u);
  const auto& vgg = part.profiles.get("vgg16");
  EXPECT_EQ(vgg.latency({"RTX2080Ti", GpuShare::percent(20), 1, std::nullopt}), Duration::from_us(4535.2));
  EXPECT_EQ(part.monotone_fixes, 1);  // 100 % batch 2 was faster than batch 1
  EXPECT_EQ(vgg.latency({"RTX2080Ti", GpuShare::whole(), 2, std::nullopt}), Duration::microseconds(1600));
}

TEST(TraceFile, OffsetsFromTheFirstArrival) {
  const auto t = parse_trace("# seconds\n10.5\n10.75\n\n11\n", "t.txt");
  ASSERT_EQ(t.size(), 3u);
  EXPECT_EQ(t[0], Duration());
  EXPECT_EQ(t[1], Duration::milliseconds(250));
  EXPECT_EQ(t[2], Duration::milliseconds(500));
  try {
    parse_trace("1\n2\n1.5\n", "t.txt");
    FAIL();
  } catch (const InputError& e) {
    EXPECT_EQ(e.where(), "line 3, column 1");
  }
  EXPECT_THROW(parse_trace("1\n", "t.txt"), InputError);
  EXPECT_THROW(parse_trace("1\n1\n", "t.txt"), InputError);
}
