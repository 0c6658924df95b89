#include "app/cli/mps_share_profiles.h"

#include <stdlib.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <iostream>
#include <optional>

#include "engine/gpu/child_program.h"
#include "engine/gpu/mps_control.h"
#include "model/core/error.h"
#include "model/io/document.h"

namespace servescope::cli {
namespace {

// A folder of its own for the share processes' files, removed with everything in it.
class ScratchFolder {
 public:
  ScratchFolder() {
    auto pattern = (std::filesystem::temp_directory_path() / "servescope-profile.XXXXXX").string();
    if (!::mkdtemp(pattern.data())) throw Error("cannot make a temporary folder like " + pattern);
    path_ = pattern;
  }
  ~ScratchFolder() {
    std::error_code ec;
    std::filesystem::remove_all(path_, ec);
  }
  ScratchFolder(const ScratchFolder&) = delete;
  ScratchFolder& operator=(const ScratchFolder&) = delete;
  const std::filesystem::path& path() const { return path_; }

 private:
  std::filesystem::path path_;
};

}  // namespace

MpsShareProfile profile_at_mps_shares(const MpsShareProfileRequest& request) {
  if (request.shares.empty()) throw QueryError("profile at least one share");
  for (const int s : request.shares)
    if (s < 1 || s > 64) throw QueryError("share 1/" + std::to_string(s) + " of a GPU: MPS shares are 1/1 to 1/64");
  auto order = request.shares;
  std::ranges::sort(order);
  if (std::ranges::adjacent_find(order) != order.end()) throw QueryError("--shares names a share twice");
  // A share of the whole GPU is only a share under MPS: without it each process gets all of it.
  if (order.back() > 1) {
    const auto mps = engine::gpu::ensure_mps(true, {});
    std::cerr << "profile: MPS " << mps.detail << "\n";
  }

  const ScratchFolder scratch;
  MpsShareProfile out;
  std::optional<int> device_from;  // the divisor of the share whose process named the device
  for (const int s : request.shares) {
    const auto label = "1/" + std::to_string(s);
    const auto profiles = scratch.path() / ("share-" + std::to_string(s) + "-profiles.json");
    const auto scenario = scratch.path() / ("share-" + std::to_string(s) + "-scenario.json");
    engine::gpu::ChildProgram child;
    child.argv = {request.program, "profile",  request.model_dir, "--device",
                  "cuda",          "--shares", std::to_string(s), "--share-process"};
    child.argv.insert(child.argv.end(), request.extra.begin(), request.extra.end());
    child.argv.insert(child.argv.end(), {"-o", profiles.string(), "--scenario-out", scenario.string(), "--nodes", "1"});
    const int percent = std::clamp(static_cast<int>(std::lround(100.0 / s)), 1, 100);
    child.env = {{"CUDA_MPS_ACTIVE_THREAD_PERCENTAGE", std::to_string(percent)}};
    child.stdout_to_stderr = true;
    std::cerr << "profile: share " << label << " (" << percent << " % of the GPU's threads) in a process of its own\n";
    if (const int status = engine::gpu::run_to_end(child); status != 0) {
      const auto why = "profiling share " + label + " failed: its process (" + request.program +
                       ") exited with status " + std::to_string(status) + "; its message is above";
      if (status == 2) throw QueryError(why);  // what it was asked cannot be done here, as for this one
      throw Error(why);
    }
    auto set = load_profiles(profiles.string());
    const auto measured = load_scenario(scenario.string());
    if (set.models.size() != 1 || set.models.front().block_tables.size() != 1 || measured.custom_gpus.empty())
      throw Error("the share " + label + " process wrote " + std::to_string(set.models.size()) +
                  " models and no single table and device type: not what profile --share-process writes");
    auto& model = set.models.front();
    const auto& device = measured.custom_gpus.front();
    if (out.profile.block_tables.empty()) {
      out.profile = model;
      out.profile.block_tables.clear();
    } else if (model.block_count != out.profile.block_count || model.name != out.profile.name) {
      throw Error("the share processes measured different models (" + out.profile.name + " in " +
                  std::to_string(out.profile.block_count) + " blocks, then " + model.name + " in " +
                  std::to_string(model.block_count) + ")");
    }
    if (!out.device.id.empty() && device.id != out.device.id)
      throw Error("the share processes saw different GPUs: " + out.device.id + " and " + device.id +
                  " (was CUDA_VISIBLE_DEVICES changed?)");
    // The largest share's view of the GPU: under MPS a smaller one may see fewer SMs.
    if (!device_from || s < *device_from) {
      out.device = device;
      device_from = s;
    }
    out.profile.block_tables.push_back(std::move(model.block_tables.front()));
  }
  for (auto& table : out.profile.block_tables)
    table.gpu = out.device.id;
  std::string shares;
  for (const int s : request.shares)
    shares += (shares.empty() ? "" : ", ") + std::string("1/") + std::to_string(s);
  out.profile.description += ", at MPS shares " + shares + " (a process each)";
  return out;
}

}  // namespace servescope::cli
