// Read-only files compiled into every ServeScope binary: the GPU catalog, the model zoo built
// from published tables, cluster templates from the papers and the demo project. They live as
// ordinary JSON under resources/ so `servescope-cli validate` can check them like user files.
#pragma once

#include <optional>
#include <span>
#include <string_view>

namespace servescope::resources {

struct BuiltinResource {
  std::string_view name;  // path relative to resources/, e.g. "zoo/symphony-a100.json"
  std::string_view contents;
};

std::span<const BuiltinResource> all_builtin_resources();

// The contents of one built-in file, or nullopt when no such name was embedded.
std::optional<std::string_view> find_builtin_resource(std::string_view name);

}  // namespace servescope::resources
