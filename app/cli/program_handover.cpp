#include "app/cli/program_handover.h"

#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <string>
#include <vector>

#include "model/core/error.h"

namespace servescope::cli {

std::string own_program() {
  std::error_code ec;
  const auto self = std::filesystem::read_symlink("/proc/self/exe", ec);
  if (ec) throw QueryError("cannot find this program's own path in /proc/self/exe: " + ec.message());
  return self.string();
}

void hand_over_to_torch() {
  // LibTorch's OpenMP threads spin while they wait for work unless told otherwise, and libgomp
  // reads that as it loads, before servescope-torch's main: so it is set here, for the program
  // and every process it starts (share processes, slot threads' pools). Spinning, a slot's idle
  // threads took the cores of the slot beside it: resnet18 at batch 1 on 1 of 2 threads took
  // 40-48 ms with OMP_WAIT_POLICY=ACTIVE against 6.3-6.5 ms passive, and the same entry of
  // three back-to-back profiles spread 19 % (BENCHMARKS.md "Real models"). A user's own
  // setting is kept.
  ::setenv("OMP_WAIT_POLICY", "PASSIVE", 0);
  hand_over_to("servescope-torch",
               "this servescope-cli was built without LibTorch (no servescope-torch beside it): install libtorch-dev "
               "and rebuild (scripts/run.sh does)");
}

void hand_over_to_cuda() {
  hand_over_to("servescope-cuda",
               "this build has no CUDA programs (no servescope-cuda beside it): it is built where the CUDA toolkit's "
               "nvcc is (/usr/local/cuda/bin, $CUDA_PATH/bin or PATH); the Debian package leaves it out, since "
               "cuBLAS is not a Debian package");
}

void hand_over_to(const std::string& program, const std::string& missing) {
  std::error_code ec;
  const auto self = std::filesystem::read_symlink("/proc/self/exe", ec);
  const auto target = ec ? std::filesystem::path() : self.parent_path() / program;
  // A program that is itself the one asked for has no other to go to (a build missing a part).
  if (!ec && self.filename() == program) throw QueryError(missing);
  if (target.empty() || !std::filesystem::is_regular_file(target, ec)) throw QueryError(missing);
  std::ifstream cmdline("/proc/self/cmdline", std::ios::binary);
  std::vector<std::string> args;
  for (std::string arg; std::getline(cmdline, arg, '\0');)
    args.push_back(arg);
  if (args.empty()) throw QueryError("cannot read this process's arguments from /proc/self/cmdline");
  args[0] = target.string();
  std::vector<char*> argv;
  argv.reserve(args.size() + 1);
  for (auto& a : args)
    argv.push_back(a.data());
  argv.push_back(nullptr);
  std::cout.flush();
  std::cerr.flush();
  ::execv(target.c_str(), argv.data());  // returns only on failure
  throw QueryError("cannot start " + target.string() + ": " + std::strerror(errno));
}

}  // namespace servescope::cli
