// The names a plan's parts go by when a user picks one (README "The GUI", Plans tab): the
// diagram's items carry them, the placement's shares carry them, and every view that shows the
// plan's work (the cluster's chips, the timeline's rows, the project tree) finds its own part by
// them. One place makes them, so a pool picked in a diagram is the pool the chips draw.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>

namespace servescope::engine {

// Partition `partition` (from 1) of the model's `pipeline`-th pipeline (from 1, in plan order).
inline std::string pool_item_id(const std::string& model, std::size_t pipeline, std::size_t partition) {
  return "pool:" + model + "/" + std::to_string(pipeline) + "/" + std::to_string(partition);
}
// Glet `glet` (from 1, free ones counted) of the plan's GPU `gpu` (from 0).
inline std::string glet_item_id(std::size_t gpu, std::size_t glet) {
  return "glet:" + std::to_string(gpu) + "/" + std::to_string(glet);
}
inline std::string module_item_id(const std::string& module) {
  return "module:" + module;
}
// The module a "module:ID" names, if that is what `id` is.
inline std::optional<std::string> module_of_item(std::string_view id) {
  constexpr std::string_view prefix = "module:";
  if (!id.starts_with(prefix)) return std::nullopt;
  return std::string(id.substr(prefix.size()));
}

}  // namespace servescope::engine
