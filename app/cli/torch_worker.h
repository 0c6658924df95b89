// `live worker --executor torch`: the worker's LibTorch executor (torchexec/torch_executor.h)
// made from the command's options. Built into each executable: servescope-torch makes it,
// servescope-cli (no LibTorch) hands the whole command over to servescope-torch.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "app/cli/executor_setup.h"

namespace servescope::cli {

struct TorchWorkerArgs {
  std::vector<std::string> models;  // model folders (scripts/export_model.py)
  std::string device = "cpu";
  std::uint64_t check_every = 100;
};

// Loads every folder (InputError naming the file on a bad one). Without LibTorch it does not
// return: the process becomes servescope-torch, or QueryError says how to get one.
ExecutorSetup make_torch_worker(const TorchWorkerArgs& args, const std::function<void(const std::string&)>& log);

}  // namespace servescope::cli
