#include "cudaexec/cuda_slot_device.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <cuda_fp16.h>
#include <stdexcept>
#include <vector>

#include "cudaexec/cublas_library.h"
#include "cudaexec/cuda_check.h"
#include "cudaexec/stream_kernel.h"

namespace servescope::cudaexec {

CudaSlotDevice::CudaSlotDevice(const CudaSlotOptions& options) : options_(options) {
  SERVESCOPE_CUDA(cudaSetDevice(options_.gpu));
  cudaDeviceProp prop{};
  SERVESCOPE_CUDA(cudaGetDeviceProperties(&prop, options_.gpu));
  SERVESCOPE_CUDA(cudaDeviceGetAttribute(&sm_count_, cudaDevAttrMultiProcessorCount, options_.gpu));
  l2_bytes_ = prop.l2CacheSize;
  const char* share = std::getenv("CUDA_MPS_ACTIVE_THREAD_PERCENTAGE");
  description_ = std::string(prop.name) + " (GPU " + std::to_string(options_.gpu) + ")" +
                 (share ? std::string(" at ") + share + " % of its threads (MPS)" : std::string(", whole"));
  SERVESCOPE_CUDA(cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking));
  SERVESCOPE_CUDA(cudaEventCreate(&start_));
  SERVESCOPE_CUDA(cudaEventCreate(&stop_));
  SERVESCOPE_CUDA(cublas().create(&blas_));
  SERVESCOPE_CUDA(cublas().set_stream(blas_, stream_));
  const auto n = static_cast<std::size_t>(options_.gemm_size);
  // Each batched call writes its GEMMs' outputs side by side (fp16, as a layer's activations).
  gemms_per_call_ = std::max<std::size_t>(1, options_.gemm_output_bytes / (n * n * sizeof(__half)));
  SERVESCOPE_CUDA(cudaMalloc(&a_, n * n * sizeof(__half)));
  SERVESCOPE_CUDA(cudaMalloc(&b_, n * n * sizeof(__half)));
  SERVESCOPE_CUDA(cudaMalloc(&c_, gemms_per_call_ * n * n * sizeof(__half)));
  // Random operands: tensor cores multiply zeros faster (about 13 % on an H200) than the weights
  // and activations a model has. The values stay within ±1, so the products cannot overflow.
  std::vector<__half> operand(n * n);
  std::uint64_t state = 0x9e3779b97f4a7c15U;  // xorshift64, seeded per GPU
  state += static_cast<std::uint64_t>(options_.gpu);
  for (auto* matrix : {a_, b_}) {
    for (auto& x : operand) {
      state ^= state << 13;
      state ^= state >> 7;
      state ^= state << 17;
      x = __float2half(static_cast<float>(state >> 40) / static_cast<float>(std::uint64_t{1} << 23) - 1.0f);
    }
    SERVESCOPE_CUDA(cudaMemcpy(matrix, operand.data(), n * n * sizeof(__half), cudaMemcpyHostToDevice));
  }
  const std::size_t buffer = std::max(options_.min_stream_buffer, 4 * static_cast<std::size_t>(prop.l2CacheSize));
  half_bytes_ = buffer / 2 / 4096 * 4096;
  SERVESCOPE_CUDA(cudaMalloc(&stream_buffer_, 2 * half_bytes_));
  SERVESCOPE_CUDA(cudaMemsetAsync(stream_buffer_, 0, 2 * half_bytes_, stream_));
  SERVESCOPE_CUDA(cudaStreamSynchronize(stream_));
}

CudaSlotDevice::~CudaSlotDevice() {
  // Nothing here may throw; a failing free at exit leaves the driver to clean up.
  cudaFree(input_);
  cudaFreeHost(host_);
  cudaFree(stream_buffer_);
  cudaFree(c_);
  cudaFree(b_);
  cudaFree(a_);
  if (blas_) cublas().destroy(blas_);  // blas_ is set only once cuBLAS was opened
  if (stop_) cudaEventDestroy(stop_);
  if (start_) cudaEventDestroy(start_);
  if (stream_) cudaStreamDestroy(stream_);
}

void CudaSlotDevice::enqueue(const engine::gpu::WorkRecipe& recipe) {
  const int n = options_.gemm_size;
  const auto n2 = static_cast<long long>(n) * n;
  const float alpha = 1.0f, beta = 0.0f;
  SERVESCOPE_CUDA(cudaEventRecord(start_, stream_));
  // The GEMMs as few strided-batched calls: one call per GEMM would be bound by launches (a 256³
  // GEMM is about 4 µs on an H200, its launch as long), and a block's time would then hardly
  // change with its share of the GPU. A and B are the same for every GEMM of a call (stride 0).
  for (std::int64_t left = recipe.gemms; left > 0;) {
    const auto batch = static_cast<int>(std::min<std::int64_t>(left, static_cast<std::int64_t>(gemms_per_call_)));
    SERVESCOPE_CUDA(cublas().gemm_strided_batched_ex(blas_, CUBLAS_OP_N, CUBLAS_OP_N, n, n, n, &alpha, a_, CUDA_R_16F,
                                                     n, 0, b_, CUDA_R_16F, n, 0, &beta, c_, CUDA_R_16F, n, n2, batch,
                                                     CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT));
    left -= batch;
  }
  if (recipe.stream_bytes > 0) {
    const auto bytes = static_cast<std::size_t>(recipe.stream_bytes);
    SERVESCOPE_CUDA(launch_stream(stream_buffer_, static_cast<char*>(stream_buffer_) + half_bytes_, half_bytes_,
                                  stream_at_, bytes, sm_count_, stream_));
    // The next stream goes on where this one stopped (each byte moved is half read, half written).
    stream_at_ = (stream_at_ + bytes / 2) % half_bytes_;
  }
  SERVESCOPE_CUDA(cudaEventRecord(stop_, stream_));
}

std::int64_t CudaSlotDevice::finish() {
  SERVESCOPE_CUDA(cudaEventSynchronize(stop_));
  float ms = 0;
  SERVESCOPE_CUDA(cudaEventElapsedTime(&ms, start_, stop_));
  return std::llround(static_cast<double>(ms) * 1e6);
}

std::int64_t CudaSlotDevice::run_ns(const engine::gpu::WorkRecipe& recipe) {
  enqueue(recipe);
  return finish();
}

double CudaSlotDevice::gemm_l2_bytes() const {
  const double n = options_.gemm_size;
  return n * n * n / 32;
}

double CudaSlotDevice::l2_bytes_per_ns() {
  const auto half = static_cast<std::size_t>(l2_bytes_) / 8 / 4096 * 4096;
  if (half == 0) return 0;
  const std::size_t bytes = std::size_t{128} * half;  // 64 passes, read and written
  std::vector<double> rates;
  for (int i = 0; i < 6; ++i) {  // the first warms the lines into the L2
    SERVESCOPE_CUDA(cudaEventRecord(start_, stream_));
    SERVESCOPE_CUDA(
        launch_stream(stream_buffer_, static_cast<char*>(stream_buffer_) + half, half, 0, bytes, sm_count_, stream_));
    SERVESCOPE_CUDA(cudaEventRecord(stop_, stream_));
    const auto ns = finish();
    if (i > 0 && ns > 0) rates.push_back(static_cast<double>(bytes) / static_cast<double>(ns));
  }
  if (rates.empty()) return 0;  // no run took measurable time: unknown, as with no L2 at all
  std::ranges::sort(rates);
  return rates[rates.size() / 2];
}

void* CudaSlotDevice::staging(std::size_t bytes) {
  if (bytes > host_bytes_) {
    SERVESCOPE_CUDA(cudaFreeHost(host_));
    host_ = nullptr;
    host_bytes_ = 0;
    SERVESCOPE_CUDA(cudaMallocHost(&host_, bytes));
    host_bytes_ = bytes;
  }
  return host_;
}

std::int64_t CudaSlotDevice::upload(std::span<const std::uint8_t> input) {
  if (input.size() > input_bytes_) {
    SERVESCOPE_CUDA(cudaFree(input_));
    input_ = nullptr;
    input_bytes_ = 0;
    SERVESCOPE_CUDA(cudaMalloc(&input_, input.size()));
    input_bytes_ = input.size();
  }
  std::memcpy(staging(input.size()), input.data(), input.size());
  SERVESCOPE_CUDA(cudaEventRecord(start_, stream_));
  SERVESCOPE_CUDA(cudaMemcpyAsync(input_, host_, input.size(), cudaMemcpyHostToDevice, stream_));
  SERVESCOPE_CUDA(cudaEventRecord(stop_, stream_));
  return finish();
}

std::int64_t CudaSlotDevice::download(std::uint64_t, std::span<std::uint8_t> into) {
  auto* host = static_cast<std::uint8_t*>(staging(into.size()));
  const auto* from = static_cast<const char*>(stream_buffer_) + half_bytes_;
  SERVESCOPE_CUDA(cudaEventRecord(start_, stream_));
  for (std::size_t at = 0; at < into.size();) {
    const auto n = std::min(into.size() - at, half_bytes_);
    SERVESCOPE_CUDA(cudaMemcpyAsync(host + at, from, n, cudaMemcpyDeviceToHost, stream_));
    at += n;
  }
  SERVESCOPE_CUDA(cudaEventRecord(stop_, stream_));
  const auto ns = finish();
  std::memcpy(into.data(), host, into.size());
  return ns;
}

}  // namespace servescope::cudaexec
