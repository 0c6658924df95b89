// The MPS control daemon (engine/gpu/mps_control.h) checked and started as a worker or the
// profiler would, with a stand-in for nvidia-cuda-mps-control on PATH: what is missing is named,
// a stale socket is cleared, a daemon that does not come up is reported.
#include "engine/gpu/mps_control.h"

#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <gtest/gtest.h>

#include "model/core/error.h"
#include "tests/support/test_support.h"

namespace servescope::engine::gpu {
namespace {

class MpsControl : public ::testing::Test {
 protected:
  void SetUp() override {
    pipes_ = scratch_.path() / "pipes";
    bin_ = scratch_.path() / "bin";
    std::filesystem::create_directories(pipes_);
    std::filesystem::create_directories(bin_);
    for (const char* name : {"CUDA_MPS_PIPE_DIRECTORY", "PATH"})
      if (const char* v = std::getenv(name)) saved_.emplace_back(name, v);
    ::setenv("CUDA_MPS_PIPE_DIRECTORY", pipes_.c_str(), 1);
    ::setenv("PATH", bin_.c_str(), 1);
  }
  void TearDown() override {
    ::unsetenv("CUDA_MPS_PIPE_DIRECTORY");
    for (const auto& [name, value] : saved_)
      ::setenv(name.c_str(), value.c_str(), 1);
  }
  void fake_daemon(bool comes_up) { test::write_fake_mps_control(bin_, comes_up); }
  test::TempDir scratch_;
  std::filesystem::path pipes_, bin_;
  std::vector<std::pair<std::string, std::string>> saved_;
};

TEST_F(MpsControl, SaysWhatIsMissing) {
  for (const char* real : {"/usr/bin/nvidia-cuda-mps-control", "/usr/local/nvidia/bin/nvidia-cuda-mps-control"})
    if (std::filesystem::exists(real)) GTEST_SKIP() << "this machine has the real " << real;
  GpuInventory none;
  EXPECT_FALSE(ensure_mps(false, none).running) << "only checked, not started";
  try {
    ensure_mps(true, none);
    FAIL() << "started an MPS daemon that is not installed";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("nvidia-cuda-mps-control is not on PATH"), std::string::npos) << e.what();
  }
  GpuInventory prohibited;
  prohibited.devices.emplace_back();
  prohibited.devices.back().name = "NVIDIA H100 80GB HBM3";
  prohibited.devices.back().compute_mode = "prohibited";
  try {
    ensure_mps(false, prohibited);
    FAIL() << "a prohibited GPU was accepted";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("prohibited compute mode"), std::string::npos) << e.what();
  }
}

TEST_F(MpsControl, StartsTheDaemonAndWaitsForItsSocket) {
  if (!std::filesystem::exists("/usr/bin/python3")) GTEST_SKIP() << "no /usr/bin/python3 to play the daemon";
  fake_daemon(true);
  const auto status = ensure_mps(true, {});
  EXPECT_TRUE(status.running) << status.detail;
  EXPECT_NE(status.detail.find("started by this process"), std::string::npos) << status.detail;
  EXPECT_TRUE(ensure_mps(true, {}).running) << "a running daemon is used as it is";
}

// A dead daemon's socket is not a running daemon: it is removed, and a daemon started (the fake
// one's bind would fail on the old file).
TEST_F(MpsControl, AStaleSocketIsClearedAndADaemonStarted) {
  if (!std::filesystem::exists("/usr/bin/python3")) GTEST_SKIP() << "no /usr/bin/python3 to play the daemon";
  ::close(test::bound_unix_socket(pipes_ / "control", false));  // the file stays; nothing accepts on it
  EXPECT_TRUE(ensure_mps(false, {}).stale);
  fake_daemon(true);
  const auto status = ensure_mps(true, {});
  EXPECT_TRUE(status.running) << status.detail;
  EXPECT_NE(status.detail.find("started by this process"), std::string::npos) << status.detail;
}

TEST_F(MpsControl, ADaemonThatDoesNotComeUpIsReported) {
  fake_daemon(false);
  try {
    ensure_mps(true, {}, std::chrono::milliseconds(300));
    FAIL() << "a daemon without a socket was accepted";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("after 300 ms there is still no control daemon"), std::string::npos)
        << e.what();
  }
}

}  // namespace
}  // namespace servescope::engine::gpu
