// cudaexec/ where there is no GPU (CI's machines): every way in says why it cannot run, with the
// CUDA runtime's own words, and the MPS daemon is checked and started as the worker would. With a
// GPU here these skip; tests/cuda/cuda_device_test.cpp (label gpu) runs instead.
#include <dlfcn.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <gtest/gtest.h>
#include <sys/wait.h>

#include "cudaexec/cublas_library.h"
#include "cudaexec/cuda_check.h"
#include "cudaexec/cuda_slot_device.h"
#include "cudaexec/gpu_query.h"
#include "cudaexec/mps_control.h"
#include "engine/gpuexec/slot_process.h"
#include "engine/live/worker_executor.h"
#include "model/core/error.h"
#include "tests/support/test_support.h"

namespace servescope::cudaexec {
namespace {

#define SKIP_WHERE_THERE_IS_A_GPU()    \
  const auto no_gpu = no_gpu_reason(); \
  if (no_gpu.empty()) GTEST_SKIP() << "there is a GPU here: tests/cuda/cuda_device_test.cpp covers it"

std::string run(const std::string& command, int* status) {
  const auto out = test::TempDir();
  const auto file = out.path() / "out.txt";
  *status = std::system((command + " > " + file.string() + " 2>&1").c_str());
  return test::read_file(file);
}

TEST(CudaHost, WithoutAGpuEveryWayInSaysWhy) {
  SKIP_WHERE_THERE_IS_A_GPU();
  try {
    query_gpus();
    FAIL() << "query_gpus() returned without a GPU";
  } catch (const CudaError& e) {
    EXPECT_NE(std::string(e.what()).find("cudaGetDeviceCount"), std::string::npos) << e.what();
  }
  try {
    CudaSlotDevice device;
    FAIL() << "a slot device opened without a GPU";
  } catch (const CudaError& e) {
    EXPECT_NE(std::string(e.what()).find("cudaSetDevice"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("cuda_slot_device.cpp:"), std::string::npos) << "names the place";
  }
  int status = 0;
  const auto out = run(std::string(SERVESCOPE_CLI) + " gpu list", &status);
  EXPECT_EQ(WEXITSTATUS(status), 1) << out;
  EXPECT_NE(out.find("no GPU here: " + no_gpu), std::string::npos) << out;
  // A worker's slot process tells its worker the same, through the slot protocol.
  try {
    engine::gpuexec::SlotProcess slot({{SERVESCOPE_CUDA_PROGRAM, "live", "slot", "--gpu", "0"}, {}},
                                      std::chrono::seconds(30));
    slot.wait_ready();
    FAIL() << "a slot process started without a GPU";
  } catch (const engine::live::ExecutorFailure& e) {
    EXPECT_NE(std::string(e.what()).find("cudaSetDevice"), std::string::npos) << e.what();
  }
}

// cuBLAS is opened when first asked for, not at the start (cublas_library.h): a GPU is not needed
// to open it or to look up its status names.
TEST(CublasLibrary, OpensWhenFirstAskedForWithEveryEntryPoint) {
  const auto soname = "libcublas.so." + std::to_string(CUBLAS_VER_MAJOR);
  EXPECT_EQ(::dlopen(soname.c_str(), RTLD_NOW | RTLD_NOLOAD), nullptr) << soname << " was loaded at the start";
  const auto& api = cublas();
  for (const void* entry :
       {reinterpret_cast<const void*>(api.create), reinterpret_cast<const void*>(api.destroy),
        reinterpret_cast<const void*>(api.set_stream), reinterpret_cast<const void*>(api.gemm_strided_batched_ex),
        reinterpret_cast<const void*>(api.status_name), reinterpret_cast<const void*>(api.status_string)})
    EXPECT_NE(entry, nullptr);
  EXPECT_STREQ(api.status_name(CUBLAS_STATUS_NOT_INITIALIZED), "CUBLAS_STATUS_NOT_INITIALIZED");
  EXPECT_EQ(&cublas(), &api) << "opened once";
  // A failed call is reported with the library's own name for its status, and where it was.
  try {
    SERVESCOPE_CUDA(CUBLAS_STATUS_ALLOC_FAILED);
    FAIL() << "a failed status passed";
  } catch (const CudaError& e) {
    EXPECT_NE(std::string(e.what()).find("CUBLAS_STATUS_ALLOC_FAILED"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("cuda_host_test.cpp:"), std::string::npos) << e.what();
  }
}

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
  // An nvidia-cuda-mps-control that, given -d, leaves a daemon holding the control socket.
  void fake_daemon(bool comes_up) {
    const auto program = bin_ / "nvidia-cuda-mps-control";
    std::ofstream(program) << "#!/bin/sh\n[ \"$1\" = -d ] || exit 3\n"
                           << (comes_up
                                   ? "/usr/bin/python3 -c 'import os, socket, time; s = socket.socket(socket.AF_UNIX); "
                                     "s.bind(os.environ[\"CUDA_MPS_PIPE_DIRECTORY\"] + \"/control\"); "
                                     "s.listen(4); time.sleep(5)' >/dev/null 2>&1 &\n"
                                   : "")
                           << "exit 0\n";
    std::filesystem::permissions(program, std::filesystem::perms::owner_all);
  }
  test::TempDir scratch_;
  std::filesystem::path pipes_, bin_;
  std::vector<std::pair<std::string, std::string>> saved_;
};

TEST_F(MpsControl, SaysWhatIsMissing) {
  for (const char* real : {"/usr/bin/nvidia-cuda-mps-control", "/usr/local/nvidia/bin/nvidia-cuda-mps-control"})
    if (std::filesystem::exists(real)) GTEST_SKIP() << "this machine has the real " << real;
  engine::gpu::GpuInventory none;
  EXPECT_FALSE(ensure_mps(false, none).running) << "only checked, not started";
  try {
    ensure_mps(true, none);
    FAIL() << "started an MPS daemon that is not installed";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("nvidia-cuda-mps-control is not on PATH"), std::string::npos) << e.what();
  }
  engine::gpu::GpuInventory prohibited;
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
  EXPECT_NE(status.detail.find("started by this worker"), std::string::npos) << status.detail;
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
  EXPECT_NE(status.detail.find("started by this worker"), std::string::npos) << status.detail;
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
}  // namespace servescope::cudaexec
