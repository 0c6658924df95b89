#include "resources/builtin_resources.h"

#include <algorithm>

namespace servescope::resources {

std::optional<std::string_view> find_builtin_resource(std::string_view name) {
  const auto all = all_builtin_resources();
  const auto it = std::ranges::find(all, name, &BuiltinResource::name);
  if (it == all.end()) return std::nullopt;
  return it->contents;
}

}  // namespace servescope::resources
