// What `live worker --executor torch|cuda` runs batches with, made from the command's options by
// torch_worker.h or cuda_worker.h, and what it says about its run when the worker stops.
#pragma once

#include <functional>
#include <memory>
#include <string>

#include "engine/live/worker_executor.h"

namespace servescope::cli {

struct ExecutorSetup {
  std::unique_ptr<engine::live::WorkerExecutor> executor;
  std::function<std::string()> summary;  // what it ran and checked, for the log at the end
};

}  // namespace servescope::cli
