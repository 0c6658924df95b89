// What a plan is made for: a cluster, the GPU types it uses, the model profiles, the
// applications and the workloads. A project (the GUI's document) is a scenario plus the plans
// and runs made from it, so that nothing a user computed is lost between sessions.
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "model/app/application.h"
#include "model/cluster/cluster.h"
#include "model/gpu/gpu_catalog.h"
#include "model/profile/model_profile.h"
#include "model/workload/workload.h"

namespace servescope {

struct Scenario {
  std::string name;
  std::string description;
  std::vector<GpuSpec> custom_gpus;  // added to (or replacing) built-in catalog entries
  Cluster cluster;
  std::vector<std::string> profile_includes;  // "builtin:zoo/…" or paths relative to the file
  ProfileSet profiles;                        // inline profiles plus everything the includes brought in
  std::vector<Application> applications;
  std::vector<Workload> workloads;

  // The built-in catalog with custom_gpus applied.
  GpuCatalog catalog() const;
  const Application* find_application(std::string_view name) const;
  // Ids of the GPU types the cluster or the profiles use, in catalog order.
  std::vector<std::string> gpu_types_in_use() const;
  // The SLO a target is served under: its own, else its model's default, else its app's.
  std::optional<Duration> slo_of(const WorkloadTarget& target) const;
  // The workloads named (all when `names` is empty), in file order. Throws QueryError for a
  // name no workload has, or when nothing is selected.
  std::vector<const Workload*> select_workloads(const std::vector<std::string>& names) const;

  bool operator==(const Scenario&) const = default;
};

// A plan or run kept in a project. Their bodies are the JSON the planners and the simulator
// write (documented in docs/formats.md as they are added); the project keeps them verbatim.
struct SavedArtifact {
  std::string name;
  std::string system;       // "ppipe", "symphony", …
  std::string created_utc;  // ISO 8601
  nlohmann::json body;
  bool operator==(const SavedArtifact&) const = default;
};

// `base`, or "base #2", "base #3", …: the first name no artifact in `list` has.
std::string unique_artifact_name(const std::vector<SavedArtifact>& list, const std::string& base);

struct Project {
  std::string name;
  Scenario scenario;
  std::vector<SavedArtifact> plans;
  std::vector<SavedArtifact> runs;
  bool operator==(const Project&) const = default;
};

// Problems that make a scenario unusable, each with the JSON path of the offending value.
struct Diagnostic {
  std::string path;  // "$.cluster.nodes[2].gpu"
  std::string message;
};
std::vector<Diagnostic> check_scenario(const Scenario& scenario, const std::string& root = "$");

}  // namespace servescope
