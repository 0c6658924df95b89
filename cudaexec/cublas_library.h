// cuBLAS, opened at run time rather than linked (README "GPU execution"), as gpu_query.cpp opens
// NVML. Loading libcublas and libcublasLt runs their static initialisers: 0.44 s of CPU and
// 26,000 page faults at every start of a program that linked them (2-core test machine, CUDA 13),
// though only a slot device on a GPU calls cuBLAS. `gpu list`, --help, the host tests and every
// start on a machine without a GPU now start in milliseconds.
#pragma once

#include <cublas_v2.h>

namespace servescope::cudaexec {

// The entry points the slot device and cuda_check.h use, by the types the toolkit's header
// declares them with (checked where they are resolved).
struct CublasApi {
  using GemmStridedBatchedEx = cublasStatus_t(cublasHandle_t, cublasOperation_t, cublasOperation_t, int, int, int,
                                              const void*, const void*, cudaDataType, int, long long, const void*,
                                              cudaDataType, int, long long, const void*, void*, cudaDataType, int,
                                              long long, int, cublasComputeType_t, cublasGemmAlgo_t);
  cublasStatus_t (*create)(cublasHandle_t*) = nullptr;
  cublasStatus_t (*destroy)(cublasHandle_t) = nullptr;
  cublasStatus_t (*set_stream)(cublasHandle_t, cudaStream_t) = nullptr;
  GemmStridedBatchedEx* gemm_strided_batched_ex = nullptr;
  const char* (*status_name)(cublasStatus_t) = nullptr;
  const char* (*status_string)(cublasStatus_t) = nullptr;
};

// Opens libcublas.so.N (N: the major version of the toolkit this was built with) once per
// process: where the loader looks (LD_LIBRARY_PATH, the system's folders), then in the toolkit's
// library folder this was built with. CudaError names the library, where it looked and why each
// place failed; a later call tries again.
const CublasApi& cublas();

}  // namespace servescope::cudaexec
