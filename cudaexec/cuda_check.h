// CUDA and cuBLAS calls that fail become CudaError, naming the call, its status and where, so a
// slot that cannot go on tells its worker exactly why (an MPS client refused, out of memory).
#pragma once

#include <cuda_runtime_api.h>

#include <cublas_v2.h>
#include <stdexcept>
#include <string>

namespace servescope::cudaexec {

class CudaError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// `file` and `line` say where the call is (the macro below fills them in).
void check(cudaError_t status, const char* call, const char* file, int line);
void check(cublasStatus_t status, const char* call, const char* file, int line);

}  // namespace servescope::cudaexec

#define SERVESCOPE_CUDA(call) ::servescope::cudaexec::check((call), #call, __FILE__, __LINE__)
