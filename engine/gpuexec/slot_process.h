// One slot process seen from the worker (slot_protocol.h): started with its stdin and stdout
// piped and its own environment (CUDA_MPS_ACTIVE_THREAD_PERCENTAGE, the GPU), calibrated before
// it is used, stopped when it is let go. Its stderr is the worker's, so what it logs shows there.
#pragma once

#include <sys/types.h>

#include <chrono>
#include <deque>
#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "engine/gpuexec/slot_protocol.h"

namespace servescope::engine::gpuexec {

struct SlotCommand {
  std::vector<std::string> argv;  // the program (a path) and its arguments
  std::vector<std::pair<std::string, std::string>> env;  // set on top of this process's environment
};

class SlotProcess {
 public:
  // Starts the process and waits up to `ready_within` for its SlotReady. Throws
  // live::ExecutorFailure saying what went wrong: the program could not start, it said SlotFailed
  // (its message), it exited, or it did not calibrate in time.
  SlotProcess(const SlotCommand& command, std::chrono::milliseconds ready_within);
  ~SlotProcess();
  SlotProcess(const SlotProcess&) = delete;
  SlotProcess& operator=(const SlotProcess&) = delete;

  const SlotReady& ready() const { return ready_; }
  pid_t pid() const { return pid_; }
  int read_fd() const { return from_slot_; }

  void send(const SlotMessage& message);
  // What arrived so far, without waiting. A SlotFailed or the process's end throws ExecutorFailure.
  std::vector<SlotMessage> take_arrived();
  // Waits up to `within` for the first message `wanted` accepts; messages before it are kept for
  // take_arrived(). Throws ExecutorFailure on a timeout, a SlotFailed or the process's end.
  SlotMessage wait_for(const std::function<bool(const SlotMessage&)>& wanted, std::chrono::milliseconds within);

 private:
  bool read_available(int timeout_ms);  // false at end of file
  void stop();
  [[noreturn]] void gone(const std::string& why);
  std::string name_;
  pid_t pid_ = -1;
  int to_slot_ = -1, from_slot_ = -1;
  bool closed_ = false;
  SlotFrameReader reader_;
  std::deque<SlotMessage> arrived_;
  SlotReady ready_;
};

}  // namespace servescope::engine::gpuexec
