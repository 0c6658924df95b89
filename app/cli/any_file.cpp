#include "app/cli/any_file.h"

#include "engine/analysis/engine_files.h"
#include "engine/analysis/saved_artifacts.h"
#include "model/io/json_cursor.h"
#include "model/io/json_text.h"

namespace servescope::cli {

AnyFile read_any_file(const std::string& location) {
  AnyFile out;
  nlohmann::json json = parse_json_text(read_document_text(location), location);
  const auto kind = json.is_object() && json.contains("kind") && json["kind"].is_string()
                        ? json["kind"].get<std::string>()
                        : std::string();
  if (engine::is_engine_file_kind(kind)) {
    out.kind = kind;
    out.engine_summary = engine::summarize_engine_file(json, location);
    return out;
  }
  // A kind nobody writes: say every kind this reader knows, not only the model's.
  if (json.is_object() && !kind.empty()) {
    std::string known;
    bool model_kind = false;
    for (const auto k : {DocumentKind::GpuCatalog, DocumentKind::Cluster, DocumentKind::Profiles,
                         DocumentKind::Scenario, DocumentKind::Project}) {
      model_kind = model_kind || kind == to_string(k);
      known += std::string(known.empty() ? "" : ", ") + std::string(to_string(k));
    }
    for (const auto& k : engine::engine_file_kinds())
      known += ", " + k;
    if (!model_kind) JsonCursor(json, location).at("kind").fail("unknown kind '" + kind + "' (expected " + known + ")");
  }
  out.document = document_from_json(json, location);
  json = nullptr;  // the document holds what it needs
  out.kind = std::string(to_string(out.document->kind));
  if (const auto* project = std::get_if<Project>(&out.document->content))
    engine::check_saved_artifacts(*project, location, engine::ArtifactDepth::Everything);
  return out;
}

}  // namespace servescope::cli
