#include "cudaexec/cuda_check.h"

#include <filesystem>

namespace servescope::cudaexec {
namespace {

std::string place(const std::source_location& where) {
  return std::filesystem::path(where.file_name()).filename().string() + ":" + std::to_string(where.line());
}

}  // namespace

void check(cudaError_t status, const char* call, std::source_location where) {
  if (status == cudaSuccess) return;
  cudaGetLastError();  // a sticky error stays; a recoverable one is cleared for the next call
  throw CudaError(std::string(call) + " failed: " + cudaGetErrorName(status) + " (" + cudaGetErrorString(status) +
                  ") at " + place(where));
}

void check(cublasStatus_t status, const char* call, std::source_location where) {
  if (status == CUBLAS_STATUS_SUCCESS) return;
  throw CudaError(std::string(call) + " failed: " + cublasGetStatusName(status) + " (" + cublasGetStatusString(status) +
                  ") at " + place(where));
}

}  // namespace servescope::cudaexec
