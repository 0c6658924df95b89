#include "cudaexec/cuda_check.h"

#include <filesystem>

#include "cudaexec/cublas_library.h"

namespace servescope::cudaexec {
namespace {

std::string place(const char* file, int line) {
  return std::filesystem::path(file).filename().string() + ":" + std::to_string(line);
}

}  // namespace

void check(cudaError_t status, const char* call, const char* file, int line) {
  if (status == cudaSuccess) return;
  cudaGetLastError();  // a sticky error stays; a recoverable one is cleared for the next call
  throw CudaError(std::string(call) + " failed: " + cudaGetErrorName(status) + " (" + cudaGetErrorString(status) +
                  ") at " + place(file, line));
}

void check(cublasStatus_t status, const char* call, const char* file, int line) {
  if (status == CUBLAS_STATUS_SUCCESS) return;
  // A status comes from a cuBLAS call, so the library is open.
  const auto& api = cublas();
  throw CudaError(std::string(call) + " failed: " + api.status_name(status) + " (" + api.status_string(status) +
                  ") at " + place(file, line));
}

}  // namespace servescope::cudaexec
