// A file any ServeScope program wrote, read once for `validate` and `info`: one of the model's
// documents (catalog, cluster, profiles, scenario, project: load_document) or one of the
// engine's (run, load sweep, timeline, plan, goodput search: engine/analysis/engine_files.h).
#pragma once

#include <nlohmann/json.hpp>
#include <optional>
#include <string>

#include "model/io/document.h"

namespace servescope::cli {

struct AnyFile {
  std::string kind;
  std::optional<Document> document;  // a model document
  nlohmann::json engine_summary;     // an engine file's figures, read in full
};

// Throws InputError naming the file and the place of the first problem. A project's plans and
// runs, their timelines included, are read in full.
AnyFile read_any_file(const std::string& location);

}  // namespace servescope::cli
