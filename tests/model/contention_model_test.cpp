// The measured contention between slots of a device (model/profile/contention_model.h): what the
// simulator reads for a batch beside k busy slots, from the samples `profile` recorded.
#include "model/profile/contention_model.h"

#include <gtest/gtest.h>

#include "model/io/document.h"
#include "model/profile/model_profile.h"

namespace servescope {
namespace {

ContentionModel measured() {
  ContentionModel m;
  m.gpu = "cpu-x";
  // Share 1/2: two slots at once, batches 1 and 4. Share 1/4: two and four slots, batch 1.
  m.samples = {{GpuShare::mps(2), 1, 2, 1.8, 40},
               {GpuShare::mps(2), 4, 2, 1.4, 40},
               {GpuShare::mps(4), 1, 2, 1.2, 20},
               {GpuShare::mps(4), 1, 4, 2.0, 20}};
  return m;
}

TEST(ContentionModel, AloneOrWithoutSamplesABatchIsNotSlowed) {
  EXPECT_EQ(measured().slowdown(GpuShare::mps(2), 1, 1), 1.0);
  EXPECT_EQ(ContentionModel{}.slowdown(GpuShare::mps(2), 1, 4), 1.0);
}

TEST(ContentionModel, ReadsTheMeasuredSlowdownAndInterpolatesBetweenBatchSizes) {
  const auto m = measured();
  EXPECT_DOUBLE_EQ(m.slowdown(GpuShare::mps(2), 1, 2), 1.8);
  EXPECT_DOUBLE_EQ(m.slowdown(GpuShare::mps(2), 4, 2), 1.4);
  EXPECT_NEAR(m.slowdown(GpuShare::mps(2), 2, 2), 1.8 - 0.4 / 3, 1e-12);
  // Held beyond the measured batch sizes, not extrapolated.
  EXPECT_DOUBLE_EQ(m.slowdown(GpuShare::mps(2), 16, 2), 1.4);
}

TEST(ContentionModel, InterpolatesOverSlotCountsFromOneAloneAndHoldsBeyondTheMeasured) {
  const auto m = measured();
  EXPECT_DOUBLE_EQ(m.slowdown(GpuShare::mps(4), 1, 2), 1.2);
  EXPECT_NEAR(m.slowdown(GpuShare::mps(4), 1, 3), 1.6, 1e-12);
  EXPECT_DOUBLE_EQ(m.slowdown(GpuShare::mps(4), 1, 4), 2.0);
  EXPECT_DOUBLE_EQ(m.slowdown(GpuShare::mps(4), 1, 6), 2.0);
  // Share 1/2 measured only with two slots: three hold that figure.
  EXPECT_DOUBLE_EQ(m.slowdown(GpuShare::mps(2), 1, 3), 1.8);
}

TEST(ContentionModel, AnUnmeasuredShareReadsTheNearestMeasuredOne) {
  const auto m = measured();
  EXPECT_DOUBLE_EQ(m.slowdown(GpuShare::mps(3), 1, 2), 1.2);  // 1/3 is nearer 1/4 than 1/2
  EXPECT_DOUBLE_EQ(m.slowdown(GpuShare::whole(), 1, 2), 1.8);
}

TEST(ContentionModel, RepeatedMeasurementsCountByTheirRunsAndNeverSpeedABatchUp) {
  ContentionModel m;
  m.samples = {{GpuShare::mps(2), 1, 2, 2.0, 30}, {GpuShare::mps(2), 1, 2, 1.0, 10}};
  EXPECT_DOUBLE_EQ(m.slowdown(GpuShare::mps(2), 1, 2), 1.75);
  ContentionModel noisy;
  noisy.samples = {{GpuShare::mps(2), 1, 2, 1.0, 10}, {GpuShare::mps(2), 8, 2, 1.0, 10}};
  EXPECT_DOUBLE_EQ(noisy.slowdown(GpuShare::mps(2), 4, 2), 1.0);
}

TEST(ContentionModel, AProfileSetJoinsEveryModelsMeasurementOfADeviceType) {
  ProfileSet set;
  auto a = measured();
  a.source = "resnet18";
  set.contention.push_back(a);
  ProfileSet other;
  ContentionModel b;
  b.gpu = "cpu-x";
  b.source = "bert";
  b.samples = {{GpuShare::mps(2), 1, 2, 1.0, 40}};
  other.contention.push_back(b);
  set.merge(other, "bert.json");
  const auto joined = set.contention_on("cpu-x");
  EXPECT_EQ(joined.samples.size(), 5u);
  EXPECT_EQ(joined.source, "resnet18; bert");
  EXPECT_DOUBLE_EQ(joined.slowdown(GpuShare::mps(2), 1, 2), 1.4);
  EXPECT_TRUE(set.contention_on("V100").samples.empty());
}

TEST(ContentionModel, FilesRefuseASlowdownBelowOneOrASingleSlotNamingThePlace) {
  const auto load = [](const std::string& sample) {
    return std::get<ProfileSet>(parse_document(
                                    R"({"schema_version": 1, "kind": "profiles", "models": [],
            "contention": [{"gpu": "cpu-x", "samples": [)" +
                                        sample + "]}]}",
                                    "c.json")
                                    .content);
  };
  EXPECT_EQ(load(R"({"share": "1/2", "batch": 2, "slots": 2, "slowdown": 1.5, "runs": 9})")
                .contention_on("cpu-x")
                .slowdown(GpuShare::mps(2), 2, 2),
            1.5);
  try {
    load(R"({"share": "1/2", "batch": 2, "slots": 2, "slowdown": 0.5, "runs": 9})");
    FAIL() << "a slowdown below 1 loaded";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("c.json"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("slowdown"), std::string::npos) << e.what();
  }
  EXPECT_THROW(load(R"({"share": "1/2", "batch": 2, "slots": 1, "slowdown": 1.5, "runs": 9})"), InputError);
}

}  // namespace
}  // namespace servescope
