// cudaexec/ where there is no GPU (CI's machines): every way in says why it cannot run, with the
// CUDA runtime's own words (the MPS daemon's checks are tests/engine/mps_control_test.cpp). With a
// GPU here these skip; tests/cuda/cuda_device_test.cpp (label gpu) runs instead.
#include <dlfcn.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <gtest/gtest.h>
#include <sys/wait.h>

#include "cudaexec/cublas_library.h"
#include "cudaexec/cuda_check.h"
#include "cudaexec/cuda_slot_device.h"
#include "cudaexec/gpu_query.h"
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

}  // namespace
}  // namespace servescope::cudaexec
