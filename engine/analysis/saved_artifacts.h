// The plans and runs a project keeps (its `plans[]` and `runs[]`, docs/formats.md) are stored as
// the JSON their writers produced, and a project file may come from anywhere. They are read in
// full when the project is opened or validated, by the same strict readers the views use, so a
// broken one is an InputError naming the file and its place ("$.runs[2].body.summary…") at open,
// never a library exception in a view later (docs/formats.md "Files from elsewhere").
#pragma once

#include <nlohmann/json.hpp>
#include <string>

#include "model/scenario/scenario.h"

namespace servescope::engine {

// How much of a kept run is read: opening a project reads everything but the runs' timelines,
// which a view unpacks when it shows them (a project of many runs opens in a blink); `validate`
// reads the timelines too, so a corrupt one is found before anyone opens it.
enum class ArtifactDepth { AllButTimelines, Everything };

// Throws InputError naming `location` and the path inside it.
void check_saved_artifacts(const Project& project, const std::string& location,
                           ArtifactDepth depth = ArtifactDepth::AllButTimelines);

// One run or load sweep, as a run file on its own (`simulate -o`) or imported into a project.
void check_saved_run(const nlohmann::json& body, const std::string& location,
                     ArtifactDepth depth = ArtifactDepth::AllButTimelines);

// What a kept plan or run is, from its body's "kind" (Other for none or an unknown one). The
// bodies were read in full when the project was opened, so the views ask these instead of
// reading the JSON themselves.
enum class ArtifactKind { PipelinePlan, GletPlan, CostPlan, RunResult, LoadSweep, Other };
ArtifactKind artifact_kind(const nlohmann::json& body);
inline ArtifactKind artifact_kind(const SavedArtifact& artifact) {
  return artifact_kind(artifact.body);
}
// Plans that place work on the scenario's cluster, so its GPUs can be drawn with their shares:
// pooled-pipeline and gpu-let plans (a cost plan provisions machines of its own).
inline bool places_on_the_cluster(ArtifactKind kind) {
  return kind == ArtifactKind::PipelinePlan || kind == ArtifactKind::GletPlan;
}
// A run's serving system ("" when the run file names none); a load sweep's highest load factor
// at 99 % SLO attainment (0: none met it). InputError naming `location` for a malformed body.
std::string run_system(const nlohmann::json& body, const std::string& location);
double sweep_max_load_factor(const nlohmann::json& body, const std::string& location);
// Why the run `body` cannot be shown on `cluster` ("" when it can): the first GPU it ran on
// ("server/gpuK", as the simulator and the live scheduler name them) that the cluster lacks or
// has as another type. A run drawn on another cluster's GPUs would put its batches on rows that
// never ran them. InputError naming `location` for a malformed body.
std::string run_cluster_mismatch(const nlohmann::json& body, const std::string& location, const Cluster& cluster);
// A run's warm-up (its config's warmup_s; 0 when the file gives none): what happened before it
// is not measured, so looking for SLO violations starts after it.
Duration run_warmup(const nlohmann::json& body, const std::string& location);

}  // namespace servescope::engine
