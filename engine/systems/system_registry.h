// The one list of serving systems. Each family (serving_system.h) is registered once, in the
// order the systems are listed everywhere: Symphony and its baselines, PPipe's pipeline planes,
// gpu-let, the cost planners. The CLI's flags and help, the GUI's planning dock, Run and Live
// tabs, the simulator and the live scheduler all ask the registry, never a list of their own.
#pragma once

#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "engine/serving/serving_system.h"

namespace servescope::engine {

class SystemRegistry {
 public:
  // The registry with the built-in families.
  static SystemRegistry& instance();

  // Adds a family after the others. Register before another thread reads the registry (at
  // start-up, as a plug-in or a test does); a system name already taken is refused.
  void add(std::unique_ptr<ServingFamily> family);
  const std::vector<std::unique_ptr<ServingFamily>>& families() const { return families_; }

  // Every family's data planes, flattened in listing order.
  struct DataPlaneEntry {
    DataPlaneTraits traits;
    const ServingFamily* family = nullptr;
  };
  const std::vector<DataPlaneEntry>& data_planes() const { return planes_; }

 private:
  SystemRegistry();
  std::vector<std::unique_ptr<ServingFamily>> families_;
  std::vector<DataPlaneEntry> planes_;
};

// Every data plane `simulate` runs, in listing order.
std::vector<DataPlaneTraits> data_planes();
std::vector<std::string> simulation_systems();
// The data plane named `system`, and its family; QueryError naming the known systems (and the
// nearest name to a misspelt one) for a name no family has.
const DataPlaneTraits& data_plane_traits(const std::string& system);
const ServingFamily& data_plane_family(const std::string& system);

// Every system plan_scenario knows, grouped by family in a stable order.
std::vector<std::pair<PlannerFamily, std::string>> scenario_planners();
// Whether some family plans `system` (the cost planners' ablations included).
bool is_planner(const std::string& system);
// The family whose planners plan `system`; QueryError for a system no planner knows.
const ServingFamily& planning_family(const std::string& system);
PlannerFamily planner_family(const std::string& system);
// The family whose plans have this "kind"; null for none.
const ServingFamily* plan_kind_family(std::string_view kind);

}  // namespace servescope::engine
