// Where a plan puts its work on the cluster's GPUs, for drawing: a pooled-pipeline plan's vGPUs
// (1/v MPS shares) and a gpu-let plan's glets (p % MPS processes), each GPU with the shares it
// carries. It places the plan exactly as the simulator does (deploy_pipeline_plan,
// deploy_glet_plan over cluster_gpus), so the cluster editor's chips show what a run will use.
// Cost plans count machines of a type and have no placement.
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "model/profile/gpu_share.h"
#include "model/scenario/scenario.h"

namespace servescope::engine {

struct PlacedShare {
  std::string model;
  GpuShare share = GpuShare::whole();
  std::string detail;  // "blocks 0–4, batch 8" or "batch 4, 120 req/s"
  std::string item;    // the plan part it belongs to (plan_item_id.h): "pool:vgg16/1/2", "glet:3/1"
  // The slot a run of the plan puts it in: its index among the run's GPU rows and its name there.
  std::uint32_t slot = 0;
  std::string slot_name;
};

struct PlacedGpu {
  std::string name;  // "v100-1/gpu0"
  std::string gpu_type;
  std::uint32_t server = 0;  // expanded server index (Cluster::servers order)
  std::size_t node = 0;      // its node entry
  int gpu_in_server = 0;
  std::vector<PlacedShare> shares;  // empty: the plan leaves this GPU idle
};

struct PlanPlacement {
  std::vector<PlacedGpu> gpus;  // every GPU of the cluster, in cluster order
  bool placed = false;          // false for plans without a placement (cost plans)

  // The shares of plan part `item`, in slot order (none for an id the plan lacks).
  std::vector<const PlacedShare*> shares_of(const std::string& item) const;
};

// Throws QueryError when the plan does not fit the scenario's cluster (too few GPUs of a type,
// a profile missing the plan's share or batch) or InputError when the plan JSON is malformed.
PlanPlacement place_plan(const Scenario& scenario, const nlohmann::json& plan);

}  // namespace servescope::engine
