#include "app/cli/torch_handover.h"

#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <string>
#include <vector>

#include "model/core/error.h"

namespace servescope::cli {

void hand_over_to_torch() {
  std::error_code ec;
  const auto self = std::filesystem::read_symlink("/proc/self/exe", ec);
  const auto torch = ec ? std::filesystem::path() : self.parent_path() / "servescope-torch";
  if (torch.empty() || !std::filesystem::is_regular_file(torch, ec))
    throw QueryError(
        "this servescope-cli was built without LibTorch (no servescope-torch beside it): install libtorch-dev and "
        "rebuild (scripts/run.sh does)");
  std::ifstream cmdline("/proc/self/cmdline", std::ios::binary);
  std::vector<std::string> args;
  for (std::string arg; std::getline(cmdline, arg, '\0');)
    args.push_back(arg);
  if (args.empty()) throw QueryError("cannot read this process's arguments from /proc/self/cmdline");
  args[0] = torch.string();
  std::vector<char*> argv;
  argv.reserve(args.size() + 1);
  for (auto& a : args)
    argv.push_back(a.data());
  argv.push_back(nullptr);
  std::cout.flush();
  std::cerr.flush();
  ::execv(torch.c_str(), argv.data());  // returns only on failure
  throw QueryError("cannot start " + torch.string() + ": " + std::strerror(errno));
}

}  // namespace servescope::cli
