// One of the PPipe authors' plan files (the artifact's data/plans/…; issue 49) as ServeScope's own
// pipeline plan and the scenario it implies, so the authors' plans simulate, and serve, like ours:
// the cluster their file name and contents give (GPU types, counts, GPUs per server, bandwidth),
// the models with the artifact's profiles, a Poisson workload offering each model the throughput
// the plan gives it (load factor 1, as the artifact's simulator offers it) at the plan's SLO,
// and each pipeline's partitions as the file has them. A partition of a fractional GPU count
// (1.5 V100s) holds that many MPS shares, and the placement (gpu_placement.h) gives the share its
// last GPU leaves to another partition, as the authors' plans do; the notes say where.
#pragma once

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "engine/ppipe/pipeline_plan.h"
#include "model/scenario/scenario.h"

namespace servescope::engine {

struct ImportedReferencePlan {
  Scenario scenario;
  PipelinePlan plan;
  std::vector<std::string> notes;
};

// `data_dir` is the artifact's data/ folder (its profiles). Throws InputError naming the file and
// the place.
ImportedReferencePlan import_reference_plan(const std::filesystem::path& data_dir,
                                            const std::filesystem::path& plan_file);

// The artifact's data/ folder a plan file lies in (data/plans/maf19/x.json → data): the nearest
// folder above it with both models/ and plans/; nullopt when there is none.
std::optional<std::filesystem::path> reference_data_dir(const std::filesystem::path& plan_file);

}  // namespace servescope::engine
