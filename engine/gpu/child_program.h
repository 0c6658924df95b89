// Programs this one starts on the same machine (README "GPU execution"): the MPS control daemon,
// a slot process per vGPU, a profiling process per MPS share. MPS reads a client's share from its
// environment when the client first opens the GPU, so each share needs a process of its own, told
// its share there: every child gets this process's environment with some variables set on top.
#pragma once

#include <string>
#include <utility>
#include <vector>

namespace servescope::engine::gpu {

using EnvironmentChanges = std::vector<std::pair<std::string, std::string>>;

// This process's environment ("NAME=value" entries) with `changes` set on top.
std::vector<std::string> environment_with(const EnvironmentChanges& changes);

// NUL-terminated pointers into `strings`, as exec and posix_spawn take them.
std::vector<char*> exec_pointers(std::vector<std::string>& strings);

struct ChildProgram {
  std::vector<std::string> argv;  // the program (a path) and its arguments
  EnvironmentChanges env;
  bool stdout_to_stderr = false;  // its standard output joins this process's standard error
};

// Runs `program` to its end and returns its exit status (128 + the signal that ended it). Throws
// Error naming the program when it cannot be started.
int run_to_end(const ChildProgram& program);

}  // namespace servescope::engine::gpu
