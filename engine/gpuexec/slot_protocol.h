// Between a worker and its slot processes (README "GPU execution"). A worker with a GPU runs
// one process per vGPU slot, each an MPS client with its own active-thread percentage, since MPS
// provisions SMs per process. The worker sends each slot the batches to run; the slot calibrates
// its work once (engine/gpu/work_calibration.h), runs each batch as calibrated GEMMs and a
// streaming kernel, and reports the time its device measured.
//
// The two talk over a pair of pipes (the slot's stdin and stdout) in frames of a 4-byte
// little-endian payload length, a 1-byte type and the payload. Both ends are ServeScope, but a
// slot that dies mid-frame or a bug must not make the worker read past a frame or allocate
// without bound: frames are capped and decoded with byte_codec's checked reader.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <variant>
#include <vector>

#include "engine/gpu/work_calibration.h"

namespace servescope::engine::gpuexec {

inline constexpr std::uint32_t kMaxSlotFrameBytes = 1u << 30;  // a batch's feature map, with room

// Slot → worker, once, after calibrating: what its device is and how its work scales.
struct SlotReady {
  std::string device;  // "NVIDIA H100 80GB HBM3 at 50 % (MPS)"
  gpu::LinearCost gemm, stream;
  double gemm_l2_bytes = 0;    // L2 traffic of one GEMM (its tiles' reads)
  double l2_bytes_per_ns = 0;  // the L2's streaming rate, measured on an L2-resident buffer
};
// Worker → slot: run a batch. `input` (may be empty) goes host → device first; `output_bytes` of
// its output come back device → host with SlotDone (a pipeline stage's feature maps).
struct SlotRun {
  std::uint64_t batch = 0;
  std::int64_t target_ns = 0;
  double compute_fraction = 0.7;
  std::vector<std::uint8_t> input;
  std::uint64_t output_bytes = 0;
};
// Slot → worker: a batch ran. run_ns is the work's device time; copy_ns its copies' (input in,
// output out). The output is copied out as soon as the batch ends, as a pipeline stage sends its
// feature map: a worker that asked for it later would wait behind the slot's next batch.
struct SlotDone {
  std::uint64_t batch = 0;
  std::int64_t run_ns = 0;
  std::int64_t copy_ns = 0;
  gpu::WorkRecipe recipe;
  std::vector<std::uint8_t> output;
};
// Measurement (measure-interference, profile --device cuda): tune a recipe for a target, or
// time a fixed recipe `repeats` times back to back.
struct SlotTune {
  std::uint64_t tag = 0;
  std::int64_t target_ns = 0;
  double compute_fraction = 0.7;
};
struct SlotTuned {
  std::uint64_t tag = 0;
  gpu::CalibrationCheck check;
};
struct SlotTime {
  std::uint64_t tag = 0;
  gpu::WorkRecipe recipe;
  std::uint32_t repeats = 1;
};
// One timed run: when it started and ended on the host's monotonic clock (shared by every
// process of the machine, so two slots' runs can be laid side by side) and its device time.
struct TimedRun {
  std::int64_t start_ns = 0, end_ns = 0, device_ns = 0;
  bool operator==(const TimedRun&) const = default;
};
struct SlotTimed {
  std::uint64_t tag = 0;
  std::vector<TimedRun> runs;
};
inline constexpr std::uint32_t kMaxTimedRepeats = 1'000'000;

// Slot → worker: it cannot go on (a CUDA error, an MPS client refused), and why.
struct SlotFailed {
  std::string message;
};
struct SlotStop {};

using SlotMessage =
    std::variant<SlotReady, SlotRun, SlotDone, SlotFailed, SlotStop, SlotTune, SlotTuned, SlotTime, SlotTimed>;

std::vector<std::uint8_t> encode(const SlotMessage& message);  // header and payload
// Decodes the payload of a frame whose header said `type`; throws ProtocolError naming the field.
SlotMessage decode(std::uint8_t type, std::span<const std::uint8_t> payload);

// A frame reader over whatever bytes arrived.
class SlotFrameReader {
 public:
  void feed(std::span<const std::uint8_t> bytes);
  // The next whole message, if one has arrived; throws ProtocolError on an oversized frame.
  std::optional<SlotMessage> next();
  bool mid_frame() const { return !buffer_.empty(); }

 private:
  std::vector<std::uint8_t> buffer_;
  std::size_t at_ = 0;
};

}  // namespace servescope::engine::gpuexec
