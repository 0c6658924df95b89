// The recording's spill file (engine/live/event_spill.h): blocks come back whole and in order,
// compressible or not, and nothing is left in the temporary folder. The recording over it
// (engine/live/live_recording.h): one file however many plan switches, and a spill that cannot
// be written stops the keeping, never the serving.
#include <csignal>
#include <filesystem>
#include <gtest/gtest.h>
#include <random>
#include <sys/resource.h>

#include "engine/live/event_spill.h"
#include "engine/live/live_recording.h"
#include "engine/live/tcp_socket.h"
#include "tests/support/test_support.h"

namespace servescope::engine::live {
namespace {

TEST(EventSpill, BlocksComeBackWholeAndInOrderAndNoFileIsLeft) {
  servescope::test::TempDir dir;
  ::setenv("TMPDIR", dir.path().c_str(), 1);
  std::vector<std::vector<std::uint8_t>> blocks;
  std::mt19937_64 random(7);
  for (int b = 0; b < 50; ++b) {
    std::vector<std::uint8_t> block(static_cast<std::size_t>(1 + random() % 100'000));
    for (auto& x : block)
      x = static_cast<std::uint8_t>(b % 2 ? random() : static_cast<std::uint64_t>(b));  // noise, or one value
    blocks.push_back(std::move(block));
  }
  {
    EventSpill spill;
    std::uint64_t total = 0;
    for (const auto& b : blocks) {
      spill.append(b);
      total += b.size();
    }
    spill.append({});  // nothing to keep
    EXPECT_EQ(spill.bytes(), total);
    EXPECT_LT(spill.stored_bytes(), total) << "the repetitive half compresses";
    std::size_t k = 0;
    spill.for_each([&](std::span<const std::uint8_t> got) {
      ASSERT_LT(k, blocks.size());
      EXPECT_TRUE(std::ranges::equal(got, blocks[k])) << "block " << k;
      ++k;
    });
    EXPECT_EQ(k, blocks.size());
    EXPECT_TRUE(std::filesystem::is_empty(dir.path())) << "unlinked as soon as made";
  }
  ::unsetenv("TMPDIR");
}

TEST(EventSpill, AMissingTemporaryFolderIsSaidWithItsName) {
  ::setenv("TMPDIR", "/nonexistent/servescope", 1);
  try {
    EventSpill spill;
    ADD_FAILURE() << "made a file in a folder that does not exist";
  } catch (const LiveError& e) {
    EXPECT_NE(std::string(e.what()).find("/nonexistent/servescope"), std::string::npos) << e.what();
  }
  ::unsetenv("TMPDIR");
}

std::size_t open_files() {
  return static_cast<std::size_t>(std::distance(std::filesystem::directory_iterator("/proc/self/fd"), {}));
}

SimulationResult one_model_run() {
  SimulationResult r;
  r.system = "symphony";
  r.models = {"a"};
  r.model_slo = {Duration::milliseconds(10)};
  r.gpus = {"s0/gpu0"};
  r.gpu_types = {"A100"};
  r.gpu_shares = {"1"};
  r.gpu_physical = {0};
  r.gpu_server = {0};
  r.gpu_duty_cycle = {Duration()};
  r.server_names = {"s0"};
  return r;
}

void arrive(LiveRecording& recording, std::uint64_t id, Time at) {
  recording.events().on_arrival(Request{id, 0, 0, at, at + Duration::milliseconds(10)});
}

TEST(LiveRecording, PlanSwitchesShareOneFileAndEachPlanReadsBackItsOwnPart) {
  const auto before = open_files();
  LiveRecording recording(true);
  const auto plan = one_model_run();
  // Plan k's part holds k + 1 arrivals.
  constexpr int kSwitches = 300;
  std::uint64_t id = 1;
  for (int k = 0; k < kSwitches; ++k) {
    for (int i = 0; i <= k % 5; ++i)
      arrive(recording, id++, Duration::milliseconds(k));
    recording.take(Duration::milliseconds(k));
    recording.end_plan(plan);
  }
  EXPECT_EQ(open_files(), before + 1) << "one spill for the run, not one per plan";
  arrive(recording, id++, Duration::milliseconds(kSwitches));  // unpublished, in the current part
  const auto earlier = recording.earlier_plans(Duration::seconds(1));
  ASSERT_EQ(earlier.size(), static_cast<std::size_t>(kSwitches));
  for (int k = 0; k < kSwitches; ++k)
    ASSERT_EQ(earlier[static_cast<std::size_t>(k)].metrics->total().arrivals, static_cast<std::uint64_t>(k % 5 + 1))
        << "plan " << k;
  EXPECT_EQ(recording.recorded(plan, Duration::seconds(1)).metrics->total().arrivals, 1u);
  EXPECT_TRUE(recording.failure().empty());
}

TEST(LiveRecording, ASpillThatCannotBeWrittenStopsTheKeepingNotTheServing) {
  // A file size limit stands in for a full disk: writes past it fail with EFBIG.
  struct SizeLimit {
    rlimit old{};
    void (*old_handler)(int) = nullptr;
    explicit SizeLimit(rlim_t bytes) {
      ::getrlimit(RLIMIT_FSIZE, &old);
      old_handler = std::signal(SIGXFSZ, SIG_IGN);
      rlimit limited = old;
      limited.rlim_cur = bytes;
      ::setrlimit(RLIMIT_FSIZE, &limited);
    }
    ~SizeLimit() {
      ::setrlimit(RLIMIT_FSIZE, &old);
      std::signal(SIGXFSZ, old_handler);
    }
  };
  LiveRecording recording(true);
  const auto plan = one_model_run();
  std::mt19937_64 random(3);
  std::uint64_t published = 0, kept_when_failed = 0;
  {
    SizeLimit limit(256 << 10);
    for (int chunk = 0; chunk < 400; ++chunk) {
      for (int i = 0; i < 1000; ++i)  // random ids: chunks that do not compress to nothing
        arrive(recording, random() >> 8, Duration::microseconds(chunk * 1000 + i));
      std::vector<std::uint8_t> bytes;
      ASSERT_NO_THROW(bytes = recording.take(Duration::milliseconds(chunk)));
      EXPECT_FALSE(bytes.empty()) << "subscribers still get chunk " << chunk;
      published += 1000;
      if (kept_when_failed == 0 && !recording.failure().empty()) kept_when_failed = published - 1000;
    }
  }
  ASSERT_FALSE(recording.failure().empty()) << "400,000 arrivals fit in 256 KiB?";
  EXPECT_NE(recording.failure().find("File too large"), std::string::npos) << recording.failure();
  EXPECT_NE(recording.failure().find("kept until then"), std::string::npos) << recording.failure();
  // What was kept before the failure reads back whole; nothing after it.
  const auto run = recording.recorded(plan, Duration::seconds(1));
  EXPECT_EQ(run.metrics->total().arrivals, kept_when_failed);
  EXPECT_GT(kept_when_failed, 0u);
}

}  // namespace
}  // namespace servescope::engine::live
