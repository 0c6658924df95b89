#include <gtest/gtest.h>

#include "model/core/error.h"
#include "model/profile/model_profile.h"

using namespace servescope;

namespace {

// Three blocks; latency(block b, batch n) = (b + 1) · 100 µs · n on V100, doubled at 1/2 share.
ModelProfile three_blocks() {
  ModelProfile p;
  p.name = "toy";
  p.form = ProfileForm::Blocks;
  p.block_count = 3;
  p.boundary_bytes = {1'048'576, 4'194'304};
  for (int v : {1, 2}) {
    BlockTable t{"V100", GpuShare::mps(v), {}, {}, {}};
    for (int b = 0; b < 3; ++b) {
      std::vector<Duration> l;
      for (int n = 1; n <= 4; ++n)
        l.push_back(Duration::microseconds(std::int64_t{b + 1} * 100 * n * v));
      t.blocks.emplace_back(batch_range(4), l);
    }
    p.block_tables.push_back(std::move(t));
  }
  return p;
}

}  // namespace

TEST(ProfileQuery, BlockRangesSumTheirBlocks) {
  const auto p = three_blocks();
  EXPECT_EQ(p.latency({"V100", GpuShare::whole(), 1, std::nullopt}), Duration::microseconds(600));
  EXPECT_EQ(p.latency({"V100", GpuShare::whole(), 2, BlockRange{1, 3}}), Duration::microseconds(1000));
  EXPECT_EQ(p.latency({"V100", GpuShare::mps(2), 3, BlockRange{0, 1}}), Duration::microseconds(600));
  EXPECT_EQ(p.latency({"V100", GpuShare::percent(50), 3, BlockRange{0, 1}}), Duration::microseconds(600));
  EXPECT_EQ(p.cut_bytes(1), 1'048'576);
  EXPECT_EQ(p.cut_bytes(2), 4'194'304);
  EXPECT_THROW(p.cut_bytes(3), QueryError);
  EXPECT_EQ(p.min_batch("V100", GpuShare::mps(2)), 1);
  EXPECT_EQ(p.max_batch("V100", GpuShare::mps(2)), 4);
  EXPECT_EQ(p.max_batch("T4", GpuShare::whole()), 0);
}

TEST(ProfileQuery, UnanswerableQueriesSayWhy) {
  const auto p = three_blocks();
  try {
    (void)p.latency({"T4", GpuShare::whole(), 1, std::nullopt});
    FAIL();
  } catch (const QueryError& e) {
    EXPECT_NE(std::string(e.what()).find("not profiled"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("V100@1/2"), std::string::npos) << e.what();
  }
  try {
    (void)p.latency({"V100", GpuShare::whole(), 5, std::nullopt});
    FAIL();
  } catch (const QueryError& e) {
    EXPECT_NE(std::string(e.what()).find("batch 5 is outside the profiled range 1..4"), std::string::npos) << e.what();
  }
  EXPECT_THROW((void)p.latency({"V100", GpuShare::whole(), 1, BlockRange{2, 2}}), QueryError);
  EXPECT_THROW((void)p.latency({"V100", GpuShare::whole(), 1, BlockRange{0, 4}}), QueryError);
  EXPECT_THROW((void)p.latency({"V100", GpuShare::mps(3), 1, std::nullopt}), QueryError);
}

TEST(ProfileQuery, LinearFits) {
  ModelProfile p;
  p.name = "ResNet50";
  p.form = ProfileForm::Linear;
  p.linear_fits.push_back(
      {"GTX1080Ti", GpuShare::whole(), Duration::microseconds(1053), Duration::microseconds(5072), 32});
  EXPECT_EQ(p.latency({"GTX1080Ti", GpuShare::whole(), 7, std::nullopt}), Duration::microseconds(12443));
  EXPECT_EQ(p.max_batch("GTX1080Ti", GpuShare::whole()), 32);
  EXPECT_THROW((void)p.latency({"GTX1080Ti", GpuShare::whole(), 33, std::nullopt}), QueryError);
  EXPECT_THROW((void)p.latency({"GTX1080Ti", GpuShare::whole(), 1, BlockRange{0, 2}}), QueryError);
  EXPECT_EQ(p.latency({"GTX1080Ti", GpuShare::whole(), 1, BlockRange{0, 1}}), Duration::microseconds(6125));
}

TEST(ProfileQuery, PartitionTablesInterpolateInBatch) {
  ModelProfile p;
  p.name = "vgg16";
  p.form = ProfileForm::Table;
  p.batch_tables.push_back({"RTX2080Ti", GpuShare::percent(40),
                            BatchCurve({1, 4}, {Duration::microseconds(2000), Duration::microseconds(5000)})});
  EXPECT_EQ(p.latency({"RTX2080Ti", GpuShare::percent(40), 2, std::nullopt}), Duration::microseconds(3000));
  EXPECT_THROW((void)p.latency({"RTX2080Ti", GpuShare::percent(60), 2, std::nullopt}), QueryError);
}

TEST(ProfileSet, MergeRefusesDuplicatesAndTagsOrigin) {
  ProfileSet a, b;
  a.models.push_back(three_blocks());
  ModelProfile other = three_blocks();
  other.name = "other";
  b.models.push_back(other);
  a.merge(b, "builtin:x.json");
  EXPECT_EQ(a.get("other").origin, "builtin:x.json");
  EXPECT_EQ(a.get("toy").origin, "");
  EXPECT_THROW(a.merge(b, "y.json"), QueryError);
  EXPECT_THROW((void)a.get("missing"), QueryError);
}

TEST(Transfer, BandwidthLimitedTime) {
  // 1 MiB at 6 Gbps is 1398.1 µs (PPipe digest §2.2).
  EXPECT_NEAR(transfer_time(1'048'576, 6).to_us(), 1398.101, 0.001);
  EXPECT_NEAR(transfer_time(1'048'576, 10).to_us(), 838.861, 0.001);
  EXPECT_EQ(transfer_time(0, 10), Duration());
}
