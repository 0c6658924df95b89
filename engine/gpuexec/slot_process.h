// One slot process seen from the worker (slot_protocol.h): started with its stdin and stdout
// piped and its own environment (CUDA_MPS_ACTIVE_THREAD_PERCENTAGE, the GPU), calibrated before
// it is used, stopped when it is let go. Its stderr is the worker's, so what it logs shows there.
//
// Starting does not wait for the calibration (a second or more on a GPU): a worker's loop must
// keep answering its scheduler meanwhile, so it polls (poll_ready) where a tool may wait
// (wait_ready).
#pragma once

#include <chrono>
#include <deque>
#include <functional>
#include <optional>
#include <string>
#include <sys/types.h>
#include <utility>
#include <vector>

#include "engine/gpuexec/slot_protocol.h"

namespace servescope::engine::gpuexec {

struct SlotCommand {
  std::vector<std::string> argv;                         // the program (a path) and its arguments
  std::vector<std::pair<std::string, std::string>> env;  // set on top of this process's environment
};

class SlotProcess {
 public:
  // Starts the process, which then has `ready_within` to say SlotReady. Every call below throws
  // live::ExecutorFailure saying what went wrong: the program could not start, it said SlotFailed
  // (its message), it exited, or it did not calibrate in time.
  SlotProcess(const SlotCommand& command, std::chrono::milliseconds ready_within);
  ~SlotProcess();
  SlotProcess(const SlotProcess&) = delete;
  SlotProcess& operator=(const SlotProcess&) = delete;

  bool poll_ready();               // without waiting
  const SlotReady& wait_ready();   // waits, up to the time it was given
  const SlotReady& ready() const;  // once it is (ExecutorFailure before)
  pid_t pid() const { return pid_; }
  int read_fd() const { return from_slot_; }

  void send(const SlotMessage& message);
  // What arrived so far, without waiting. A SlotFailed or the process's end throws ExecutorFailure.
  std::vector<SlotMessage> take_arrived();
  // Waits up to `within` for the first message `wanted` accepts; messages before it are kept for
  // take_arrived(). Throws ExecutorFailure on a timeout, a SlotFailed or the process's end.
  SlotMessage wait_for(const std::function<bool(const SlotMessage&)>& wanted, std::chrono::milliseconds within);

  // Measurement (slot_protocol.h's tune and time), each answer matched to its ask by a tag.
  // start_timing() returns at once, so that two slots can run at the same time; timed() waits.
  gpu::CalibrationCheck tune(std::int64_t target_ns, double compute_fraction);
  std::uint64_t start_timing(const gpu::WorkRecipe& recipe, std::uint32_t repeats);
  SlotTimed timed(std::uint64_t tag);
  SlotTimed time(const gpu::WorkRecipe& recipe, std::uint32_t repeats) { return timed(start_timing(recipe, repeats)); }

 private:
  bool read_available(int timeout_ms);  // false at end of file
  void take_messages();                 // from the reader: SlotReady noted, the rest kept
  void stop();
  [[noreturn]] void gone(const std::string& why);
  std::string name_;
  pid_t pid_ = -1;
  int to_slot_ = -1, from_slot_ = -1;
  std::uint64_t next_tag_ = 0;
  bool closed_ = false;
  SlotFrameReader reader_;
  std::deque<SlotMessage> arrived_;
  std::optional<SlotReady> ready_;
  std::chrono::steady_clock::time_point ready_by_;
  std::chrono::milliseconds ready_within_;
};

}  // namespace servescope::engine::gpuexec
