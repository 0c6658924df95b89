#include "engine/analysis/kept_timeline.h"

#include "engine/timeline/timeline_data.h"
#include "model/core/text.h"

namespace servescope::engine {
namespace {

const nlohmann::json* timeline_of_body(const nlohmann::json& body) {
  if (!body.is_object()) return nullptr;
  const auto it = body.find("timeline");
  return it == body.end() ? nullptr : &*it;
}

}  // namespace

std::size_t kept_timeline_bytes(const SavedArtifact& run) {
  const auto* timeline = timeline_of_body(run.body);
  if (!timeline) return 0;
  if (const auto packed = timeline->find("packed"); packed != timeline->end() && packed->is_object())
    if (const auto data = packed->find("data"); data != packed->end() && data->is_string())
      return data->get_ref<const std::string&>().size();
  return timeline->dump().size();
}

std::string fit_kept_timeline(SavedArtifact& run, const Project& project, const KeptTimelineBudget& budget) {
  const auto* timeline = timeline_of_body(run.body);
  if (!timeline) return {};
  if (!timeline->contains("packed"))
    run.body["timeline"] = to_json(timeline_from_json(*timeline, "run " + run.name), TimelineEncoding::Packed);
  const auto bytes = kept_timeline_bytes(run);
  std::size_t others = 0;
  for (const auto& r : project.runs)
    others += kept_timeline_bytes(r);
  std::string why;
  if (bytes > budget.run_bytes)
    why = "its timeline packs to " + format_bytes(bytes) + ", over the " + format_bytes(budget.run_bytes) +
          " a project keeps of one run";
  else if (others + bytes > budget.project_bytes)
    why = "the project's kept timelines would pass " + format_bytes(budget.project_bytes) + " (" +
          format_bytes(others) + " kept; delete older runs to keep more)";
  if (!why.empty()) run.body.erase("timeline");
  return why;
}

}  // namespace servescope::engine
