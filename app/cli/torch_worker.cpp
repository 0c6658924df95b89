#include "app/cli/torch_worker.h"

#include "app/cli/program_handover.h"
#include "model/core/error.h"

#ifdef SERVESCOPE_HAVE_TORCH
#include <sstream>

#include "model/exported/exported_model.h"
#include "torchexec/torch_executor.h"
#endif

namespace servescope::cli {

#ifndef SERVESCOPE_HAVE_TORCH

ExecutorSetup make_torch_worker(const TorchWorkerArgs&, const std::function<void(const std::string&)>&) {
  hand_over_to_torch();
}

#else

ExecutorSetup make_torch_worker(const TorchWorkerArgs& args, const std::function<void(const std::string&)>& log) {
  if (args.models.empty()) throw QueryError("--executor torch needs the model folders it serves (--models DIR…)");
  if (args.device != "cpu" && args.device != "cuda") throw QueryError("--device " + args.device + ": cpu or cuda");
  const auto device = args.device == "cuda" ? torchexec::ComputeDevice::Cuda : torchexec::ComputeDevice::Cpu;
  std::vector<std::shared_ptr<const torchexec::TorchModel> > models;
  for (const auto& folder : args.models) {
    models.push_back(std::make_shared<const torchexec::TorchModel>(read_exported_model(folder), device));
    if (log)
      log("loaded " + models.back()->manifest().name + " (" + std::to_string(models.back()->blocks()) +
          " blocks) from " + folder);
  }
  torchexec::TorchExecutorOptions options;
  options.check_every = args.check_every;
  options.log = log;
  auto executor = std::make_unique<torchexec::TorchExecutor>(std::move(models), options);
  auto* exec = executor.get();
  ExecutorSetup out;
  out.summary = [exec] {
    exec->finish_checks();  // every sampled output counted, not those checked so far
    const auto s = exec->stats();
    std::ostringstream text;
    text << "ran " << s.samples << " samples on real tensors; checked " << s.checked
         << " outputs against the whole model (largest difference " << s.max_difference << " of the output's scale)";
    if (s.forgotten > 0) text << "; forgot " << s.forgotten << " feature maps of dropped requests";
    return text.str();
  };
  out.executor = std::move(executor);
  return out;
}

#endif

}  // namespace servescope::cli
