// A slot process's side of slot_protocol.h: calibrate, then run what the worker sends until it
// says stop or closes the pipe. The device behind it is a SlotDevice: cudaexec/cuda_slot_device.h
// on a GPU; a model device in the tests, so that the loop, the protocol and the executor around
// them are tested without one.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "engine/gpu/work_calibration.h"

namespace servescope::engine::gpuexec {

class SlotDevice : public gpu::WorkTimer {
 public:
  // "NVIDIA H100 80GB HBM3 at 50 % (MPS)", for the worker's log.
  virtual std::string describe() const = 0;
  // Copies a batch's input host → device; returns the copy's device time in ns.
  virtual std::int64_t upload(std::span<const std::uint8_t> input) = 0;
  // After batch `batch` ran: copies the first `into.size()` bytes of its output device → host;
  // returns the copy's device time in ns.
  virtual std::int64_t download(std::uint64_t batch, std::span<std::uint8_t> into) = 0;
  // For the L2 feature of measure-interference: the L2 traffic of one GEMM, and the L2's
  // streaming rate on a buffer that fits in it (0: unknown).
  virtual double gemm_l2_bytes() const { return 0; }
  virtual double l2_bytes_per_ns() { return 0; }
};

struct SlotLoopOptions {
  gpu::CalibrationOptions calibration;
};

// Runs the loop on `in_fd`/`out_fd` (the slot's stdin and stdout). Returns 0 after SlotStop or
// the worker closing the pipe, 1 after sending SlotFailed (a device error: the message says it).
int run_slot_loop(SlotDevice& device, int in_fd, int out_fd, const SlotLoopOptions& options = {});

// For a slot whose device cannot even open: tells the worker why (SlotFailed) on `out_fd`, so it
// reports that rather than a slot that closed its pipe. Returns 1, the slot's exit status.
int fail_slot(int out_fd, const std::string& why);

// Blocking, EINTR-safe pipe I/O for both ends. write_all throws std::runtime_error on a closed
// pipe; read_some returns 0 at end of file.
void write_all(int fd, std::span<const std::uint8_t> bytes);
std::size_t read_some(int fd, std::span<std::uint8_t> into);

}  // namespace servescope::engine::gpuexec
