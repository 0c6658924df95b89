// `servescope-cli gpu list`: this machine's GPUs as the CUDA runtime (and NVML, where the driver
// has it) describes them, the MPS daemon's state, and each GPU's catalog entry; `--catalog FILE`
// adds the GPU's type to a catalog file, or updates the type that names it, so the planners can
// use it (README "GPU execution"). Runs in servescope-cuda.
#include <filesystem>
#include <iostream>

#include "app/cli/cli_context.h"
#include "app/cli/cuda_commands.h"
#include "app/cli/program_handover.h"
#include "model/core/error.h"
#include "model/io/document.h"
#include "model/io/file_io.h"
#include "model/io/model_json.h"

#ifdef SERVESCOPE_HAVE_CUDA
#include "cudaexec/gpu_query.h"
#endif

namespace servescope::cli {

void add_gpu_command(CLI::App& app, const GlobalOptions& global, CommandBody& run) {
  auto* gpu = app.add_subcommand("gpu", "This machine's GPUs (needs servescope-cuda, built with the CUDA toolkit)");
  gpu->require_subcommand(1);
  auto* list = gpu->add_subcommand("list", "List the GPUs: memory, SMs, clocks, MPS; optionally add them to a catalog");
  auto catalog = std::make_shared<std::string>();
  list->add_option("--catalog", *catalog,
                   "A GPU catalog file to add each GPU's type to (or update the type that names it); created when "
                   "absent");
  list->callback([&global, &run, catalog] {
    run = [&global, catalog]() -> int {
      check_outputs({*catalog});
#ifndef SERVESCOPE_HAVE_CUDA
      static_cast<void>(global);  // read by servescope-cuda, which this hands over to
      hand_over_to_cuda();
#else
      if (const auto why = cudaexec::no_gpu_reason(); !why.empty()) throw Error("no GPU here: " + why);
      const auto inventory = cudaexec::query_gpus();
      nlohmann::json report = engine::gpu::to_json(inventory);
      if (!catalog->empty()) {
        GpuCatalog file_catalog;
        std::string name = "GPUs of this machine (servescope-cli gpu list)";
        if (std::filesystem::exists(*catalog)) {
          const auto text = read_text_file(*catalog);
          file_catalog = gpu_catalog_from_json_text(text, *catalog);
          name = nlohmann::json::parse(text).value("name", name);
        }
        nlohmann::json updates = nlohmann::json::array();
        for (const auto& d : inventory.devices) {
          const auto u = engine::gpu::update_catalog(file_catalog, d);
          updates.push_back({{"gpu", d.index}, {"type", u.id}, {"added", u.added}});
          if (!global.json) report_stream() << (u.added ? "added " : "updated ") << u.id << " in " << *catalog << "\n";
        }
        save_json_file(*catalog, to_json(file_catalog, name));
        report["catalog"] = {{"file", *catalog}, {"types", std::move(updates)}};
      }
      if (global.json)
        print_json(report);
      else
        report_stream() << engine::gpu::to_text(inventory);
      return kExitOk;
#endif
    };
  });
}

}  // namespace servescope::cli
