// The recording's spill file (engine/live/event_spill.h): blocks come back whole and in order,
// compressible or not, and nothing is left in the temporary folder.
#include <filesystem>
#include <gtest/gtest.h>
#include <random>

#include "engine/live/event_spill.h"
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

}  // namespace
}  // namespace servescope::engine::live
