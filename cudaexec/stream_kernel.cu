#include "cudaexec/stream_kernel.h"

namespace servescope::cudaexec {
namespace {

// Each 16-byte vector read is written once, scaled so the compiler cannot drop the work. A
// grid-stride loop over `vectors` reads of a buffer of `half` vectors from vector `first` on,
// wrapping at its end.
__global__ void stream_kernel(const float4* __restrict__ src, float4* __restrict__ dst, std::size_t half,
                              std::size_t first, std::size_t vectors) {
  const std::size_t stride = static_cast<std::size_t>(gridDim.x) * blockDim.x;
  for (std::size_t i = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < vectors; i += stride) {
    const std::size_t at = (first + i) % half;
    float4 v = src[at];
    v.x = v.x * 0.999f + 1.0f;
    v.y = v.y * 0.999f + 1.0f;
    v.z = v.z * 0.999f + 1.0f;
    v.w = v.w * 0.999f + 1.0f;
    dst[at] = v;
  }
}

}  // namespace

cudaError_t launch_stream(const void* src, void* dst, std::size_t half_bytes, std::size_t first_byte, std::size_t bytes,
                          int sm_count, cudaStream_t stream) {
  // Read + write: a vector moved costs 32 bytes of traffic.
  const std::size_t vectors = bytes / (2 * sizeof(float4));
  const std::size_t half = half_bytes / sizeof(float4);
  if (vectors == 0 || half == 0) return cudaSuccess;
  constexpr int threads = 256;
  // Enough blocks to fill every SM several times over, no more than the work needs.
  const std::size_t wanted = (vectors + threads - 1) / threads;
  const std::size_t most = static_cast<std::size_t>(sm_count > 0 ? sm_count : 1) * 8;
  const unsigned blocks = static_cast<unsigned>(wanted < most ? wanted : most);
  stream_kernel<<<blocks, threads, 0, stream>>>(static_cast<const float4*>(src), static_cast<float4*>(dst), half,
                                                (first_byte / sizeof(float4)) % half, vectors);
  return cudaGetLastError();
}

}  // namespace servescope::cudaexec
