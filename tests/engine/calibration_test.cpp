// Calibration from a recorded run (issue 46; engine/analysis/calibration.h), on a run written by
// hand: two slots of one device, batches alone and batches beside each other, each time chosen so
// that the profile's change and the contention are known exactly. No clock anywhere.
#include "engine/analysis/calibration.h"

#include <gtest/gtest.h>

#include "model/core/error.h"
#include "tests/support/durations.h"
#include "tests/support/measured_profile.h"

namespace servescope::engine {
namespace {

using test::ms;

// Batch b takes 10·b ms at every level (a profile measured without spread), share 1/2.
ProfileSet flat_profile() {
  auto p = test::measured_one_block_profile("dev", 4, [](int b, std::size_t) { return 10'000 * b; });
  p.block_tables.front().share = GpuShare::mps(2);
  ProfileSet set;
  set.models.push_back(p);
  return set;
}

TimelineData two_slots() {
  TimelineData run;
  run.models = {"m"};
  run.gpus = {"d/v0", "d/v1"};
  run.gpu_types = {"dev", "dev"};
  run.gpu_shares = {"1/2", "1/2"};
  run.gpu_physical = {0, 0};
  return run;
}

void add(TimelineData& run, std::uint32_t gpu, double start_ms, double took_ms, std::uint32_t size = 2) {
  TimelineSpan s;
  s.gpu = gpu;
  s.size = size;
  s.start = ms(start_ms);
  s.end = ms(start_ms + took_ms);
  run.spans.push_back(s);
}

// 20 batches of 2 alone on slot 0, 30 ms each (the profile says 20: ×1.5); then 20 pairs side
// by side taking 60 ms each (×3: ×1.5 for the machine, ×2 for the company).
TimelineData alone_then_together() {
  auto run = two_slots();
  double t = 0;
  for (int i = 0; i < 20; ++i, t += 100)
    add(run, 0, t, 30);
  for (int i = 0; i < 20; ++i, t += 100) {
    add(run, 0, t, 60);
    add(run, 1, t, 60);
  }
  std::ranges::sort(run.spans, {}, [](const TimelineSpan& s) { return std::pair(s.start, s.gpu); });
  return run;
}

CalibrationOptions all_batches() {
  CalibrationOptions o;
  o.skip_first = 0;
  return o;
}

TEST(Calibration, SeparatesTheMachinesSlownessFromTheContentionBetweenSlots) {
  const auto c = calibrate(flat_profile(), alone_then_together(), {}, all_batches());
  EXPECT_EQ(c.batches_used, 60u);
  ASSERT_EQ(c.contention.size(), 1u);
  const auto& k = c.contention.front();
  EXPECT_TRUE(k.fitted);
  EXPECT_EQ(k.alone, 20);
  EXPECT_EQ(k.beside, 40);
  EXPECT_DOUBLE_EQ(k.before, 1.0);
  EXPECT_DOUBLE_EQ(k.after, 2.0);
  // Every batch, its company taken out, took 30 ms: the entry's whole distribution.
  ASSERT_EQ(c.entries.size(), 1u);
  const auto& e = c.entries.front();
  EXPECT_TRUE(e.refit);
  EXPECT_EQ(e.runs, 60);
  EXPECT_EQ(e.before_p50, ms(20));
  EXPECT_EQ(e.after_p50, ms(30));
  EXPECT_EQ(e.after_p99, ms(30));
  // The change reaches the batch sizes the run never ran, from the nearest one it did.
  ASSERT_EQ(c.profiles.models.size(), 1u);
  const auto& p = c.profiles.models.front();
  EXPECT_EQ(p.latency({"dev", GpuShare::mps(2), 1, std::nullopt}), ms(15));
  EXPECT_EQ(p.latency({"dev", GpuShare::mps(2), 4, std::nullopt}), ms(60));
  ASSERT_EQ(c.profiles.contention.size(), 1u);
  EXPECT_DOUBLE_EQ(c.profiles.contention.front().slowdown(GpuShare::mps(2), 2, 2), 2.0);
}

TEST(Calibration, KeepsTheProfilesContentionWhereNoBatchRanAlone) {
  auto profiles = flat_profile();
  profiles.contention.push_back({"dev", {{GpuShare::mps(2), 2, 2, 1.5, 10}}, "profile", ""});
  auto run = two_slots();
  for (int i = 0; i < 20; ++i) {
    add(run, 0, 100.0 * i, 45);
    add(run, 1, 100.0 * i, 45);
  }
  const auto c = calibrate(profiles, run, {}, all_batches());
  ASSERT_EQ(c.contention.size(), 1u);
  EXPECT_FALSE(c.contention.front().fitted);
  EXPECT_DOUBLE_EQ(c.contention.front().after, 1.5);
  // 45 ms beside another slot at ×1.5 is 30 ms alone.
  EXPECT_EQ(c.entries.front().after_p50, ms(30));
}

// A size the run could not fit (batch 3: only ever beside the other slot) or never served
// (batch 4) carries the change fitted at the nearest size (batch 2: ×1.0 in the profile, ×2.0
// live), so no size keeps a figure the machine has outgrown.
TEST(Calibration, CarriesTheNearestFittedContentionToSizesItCouldNotFit) {
  auto profiles = flat_profile();
  profiles.contention.push_back(
      {"dev",
       {{GpuShare::mps(2), 2, 2, 1.0, 10}, {GpuShare::mps(2), 3, 2, 1.1, 10}, {GpuShare::mps(2), 4, 2, 1.2, 10}},
       "profile",
       ""});
  auto run = alone_then_together();  // batch 2: ×1.5 alone, ×3 beside
  for (int i = 0; i < 6; ++i) {
    add(run, 0, 5000 + 200.0 * i, 90, 3);
    add(run, 1, 5000 + 200.0 * i, 90, 3);
  }
  const auto c = calibrate(profiles, run, {}, all_batches());
  ASSERT_EQ(c.contention.size(), 2u);
  EXPECT_TRUE(c.contention[0].fitted);
  EXPECT_DOUBLE_EQ(c.contention[0].after, 2.0);
  EXPECT_FALSE(c.contention[1].fitted);
  EXPECT_EQ(c.contention[1].batch, 3);
  EXPECT_EQ(c.contention[1].carried_from, 2);
  EXPECT_DOUBLE_EQ(c.contention[1].after, 2.2);
  ASSERT_EQ(c.profiles.contention.size(), 1u);
  const auto& m = c.profiles.contention.front();
  EXPECT_DOUBLE_EQ(m.slowdown(GpuShare::mps(2), 3, 2), 2.2);
  EXPECT_DOUBLE_EQ(m.slowdown(GpuShare::mps(2), 4, 2), 2.4);
}

TEST(Calibration, StagesCalibrateTheirOwnBlocksAndTooFewBatchesAreNamed) {
  // Two blocks of 5·b ms each; slot 0 runs block 0, slot 1 block 1, on devices of their own.
  ModelProfile p;
  p.name = "m";
  p.form = ProfileForm::Blocks;
  p.block_count = 2;
  p.boundary_bytes = {1000};
  BlockTable t;
  t.gpu = "dev";
  t.share = GpuShare::mps(2);
  for (int k = 0; k < 2; ++k)
    t.blocks.emplace_back(batch_range(2), std::vector<Duration>{ms(5), ms(10)});
  p.block_tables.push_back(t);
  ProfileSet profiles;
  profiles.models.push_back(p);
  auto run = two_slots();
  run.gpu_physical = {0, 1};
  for (int i = 0; i < 10; ++i) {
    add(run, 0, 100.0 * i, 20);       // block 0 at batch 2: 10 ms in the profile, ×2
    add(run, 1, 100.0 * i + 50, 10);  // block 1 at batch 2: as profiled
  }
  add(run, 1, 2000, 5, 1);  // one batch of 1: too few for a distribution of its own
  std::ranges::sort(run.spans, {}, [](const TimelineSpan& s) { return std::pair(s.start, s.gpu); });
  const auto c = calibrate(profiles, run, {{{0, BlockRange{0, 1}}}, {{0, BlockRange{1, 2}}}}, all_batches());
  EXPECT_TRUE(c.contention.empty()) << "no device holds two slots";
  const auto& after = c.profiles.models.front();
  EXPECT_EQ(after.latency({"dev", GpuShare::mps(2), 2, BlockRange{0, 1}}), ms(20));
  EXPECT_EQ(after.latency({"dev", GpuShare::mps(2), 2, BlockRange{1, 2}}), ms(10));
  EXPECT_EQ(after.latency({"dev", GpuShare::mps(2), 1, BlockRange{0, 1}}), ms(10));
  const auto few = std::ranges::find_if(c.entries, [](const EntryChange& e) { return e.batch == 1; });
  ASSERT_NE(few, c.entries.end());
  EXPECT_FALSE(few->refit);
  EXPECT_EQ(few->runs, 1);
  EXPECT_TRUE(std::ranges::any_of(c.notes, [](const std::string& n) { return n.find("fewer than 8") != n.npos; }));

  EXPECT_THROW((void)calibrate(ProfileSet{}, run, {}, all_batches()), QueryError) << "no profile for m";
}

// The profile holds the whole device too, which the run (two slots of 1/2) never ran: its times
// take the median change measured at 1/2 (×1.5) at every level, and a note says so.
TEST(Calibration, CarriesTheMeasuredChangeToASharesTheRunNeverRan) {
  auto profiles = flat_profile();
  auto whole = profiles.models.front().block_tables.front();
  whole.share = GpuShare::whole();
  profiles.models.front().block_tables.push_back(whole);
  const auto c = calibrate(profiles, alone_then_together(), {}, all_batches());
  const auto& p = c.profiles.models.front();
  EXPECT_EQ(p.latency({"dev", GpuShare::mps(2), 2, std::nullopt}), ms(30));
  EXPECT_EQ(p.latency({"dev", GpuShare::whole(), 2, std::nullopt}), ms(30));
  EXPECT_EQ(p.latency({"dev", GpuShare::whole(), 4, std::nullopt}), ms(60));
  EXPECT_TRUE(std::ranges::any_of(c.notes, [](const std::string& n) {
    return n == "m on dev 1: the run never ran this share; the median change measured at 1/2 carried";
  }));
  EXPECT_EQ(c.entries.size(), 1u) << "only what ran is an entry the run measured";
}

// One slot alone on its device whose batches come in runs of ten slow (40 ms) and ten fast
// (20 ms), 100 ms apart: the device's spells are fitted, kept with its contention (which has no
// samples: nothing ran beside anything), and round-trip through the calibrated profiles. A run
// whose times are all equal has none.
TEST(Calibration, FitsTheSpellsOfASlotWhoseBatchesComeInRuns) {
  auto run = two_slots();
  run.gpus = {"d/v0"};
  run.gpu_types = {"dev"};
  run.gpu_shares = {"1/2"};
  run.gpu_physical = {0};
  for (int i = 0; i < 200; ++i)
    add(run, 0, 100.0 * i, (i / 10) % 2 ? 40 : 20 + 0.01 * (i % 10));
  const auto c = calibrate(flat_profile(), run, {}, all_batches());
  ASSERT_EQ(c.spells.size(), 1u);
  const auto& s = c.spells.front();
  EXPECT_EQ(s.gpu, "dev");
  EXPECT_EQ(s.before, Duration());
  EXPECT_EQ(s.pairs, 199);
  EXPECT_GT(s.lag1, 0.6);
  // Runs of ten batches 100 ms apart: alike over several batches, not over the whole run.
  EXPECT_GT(s.after, ms(200));
  EXPECT_LT(s.after, ms(2000));
  ASSERT_EQ(c.profiles.contention.size(), 1u);
  EXPECT_TRUE(c.profiles.contention.front().samples.empty());
  EXPECT_EQ(c.profiles.contention.front().spell, s.after);
  EXPECT_EQ(c.profiles.contention_on("dev").spell, s.after);

  const auto even = calibrate(flat_profile(), alone_then_together(), {}, all_batches());
  EXPECT_TRUE(even.spells.empty()) << "every batch took 30 ms with its company taken out: nothing to rank";
}

}  // namespace
}  // namespace servescope::engine
