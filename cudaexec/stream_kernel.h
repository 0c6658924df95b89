// The memory part of calibrated work (engine/gpu/work_calibration.h): a kernel that streams
// bytes through DRAM, reading one half of a buffer and writing the other, round and round when
// asked for more than the buffer holds. The buffer is several times the L2, so the traffic is
// DRAM's, as a memory-bound layer's is.
#pragma once

#include <cuda_runtime_api.h>

#include <cstddef>

namespace servescope::cudaexec {

// Streams `bytes` (read + written, rounded down to 16-byte vectors) from `src` to `dst`, each of
// `half_bytes`, on `stream`, starting at `first_byte` of the halves. A caller that starts each
// launch where the last one stopped walks the whole buffer; one that always started at its
// beginning would stream a short run from the L2 (up to its 50 MB on an H200), not from DRAM.
cudaError_t launch_stream(const void* src, void* dst, std::size_t half_bytes, std::size_t first_byte, std::size_t bytes,
                          int sm_count, cudaStream_t stream);

}  // namespace servescope::cudaexec
