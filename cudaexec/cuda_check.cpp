#include "cudaexec/cuda_check.h"

#include <filesystem>

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
  throw CudaError(std::string(call) + " failed: " + cublasGetStatusName(status) + " (" + cublasGetStatusString(status) +
                  ") at " + place(file, line));
}

}  // namespace servescope::cudaexec
