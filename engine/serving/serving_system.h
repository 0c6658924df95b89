// A serving system as a plug-in. A family (Symphony and its baselines, PPipe's pipeline planes,
// gpu-let, the cost planners) names the data planes `simulate` and `live` run and the planners
// `plan` runs, and wires each into the common seam: it places its data plane on the cluster and
// builds it (engine/dataplane/data_plane.h), or plans a scenario. The registry
// (engine/systems/system_registry.h) is the one list of families; the CLI, the GUI, the
// simulator and the live scheduler iterate it instead of naming systems. docs/architecture.md,
// "How to add a serving system", is the checklist.
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <vector>

#include "engine/serving/option_schema.h"
#include "engine/serving/simulation_spec.h"
#include "model/scenario/scenario.h"

namespace servescope::engine {

struct PreparedServing;
struct ScenarioPlanRequest;
struct ScenarioPlanResult;
struct PlanSummary;

// The plan a data plane runs, if it runs one.
enum class PlanKind { None, Pipeline, Glet, Cost };

// What a data plane needs and accepts: checked once, by prepare_simulation and the consumers
// that offer systems to a user, instead of by comparing its name.
struct DataPlaneTraits {
  std::string name;
  PlanKind runs = PlanKind::None;
  bool places_own_gpus = false;      // puts work on (v)GPUs it chooses, timed from its plan:
                                     // several GPU types are fine, and models need no whole-GPU timing
  bool serves_applications = false;  // runs application DAGs (else model workloads only)
  bool splits_subclusters = false;   // takes --subclusters (Symphony §4.4)
  std::string not_live;              // why live workers cannot run it; empty: they can
  // How it decides when and where a batch runs, in a sentence or two with its paper's section,
  // for the GUI's teaching mode (engine/timeline/request_story.h).
  std::string decides;
};

enum class PlannerFamily { Pipeline, Glet, Cost };
std::string_view to_string(PlannerFamily family);

class ServingFamily {
 public:
  virtual ~ServingFamily() = default;

  // Data planes, in the order `--help` and the GUI list them.
  virtual std::vector<DataPlaneTraits> data_planes() const { return {}; }
  // Places spec.system on the cluster: replaces prepared.setup.gpus with the slots its plane
  // schedules and sets, in prepared.result, what load factor 1 is (nominal_capacity_rps), the
  // plan it runs (plan_system) and, per slot, gpu_physical and gpu_duty_cycle (empty: the slots
  // are the cluster's whole GPUs).
  virtual void place(const Scenario& scenario, const SimulationSpec& spec, PreparedServing& prepared) const;
  // Whether the data plane, as the spec sets it up, serves requests for `target` (a plan serves
  // the models it planned).
  virtual bool serves(const SimulationSpec&, const WorkloadTarget&) const { return true; }
  // Builds the data plane and its timing table once the streams carry the offered rate, and says
  // how the cluster was split (result.subclusters, partition_status).
  virtual void build(const Scenario& scenario, const SimulationSpec& spec, PreparedServing& prepared) const;

  // Planners, in the order `--help` and the GUI's planning dock list them.
  virtual std::vector<std::string> planners() const { return {}; }
  // Whether `system` is one of this family's planners; a family may plan more names than it
  // lists (the cost planners' ablations).
  virtual bool plans(const std::string& system) const;
  virtual PlannerFamily planner_family() const;
  virtual ScenarioPlanResult plan(const Scenario& scenario, const ScenarioPlanRequest& request) const;
  // The "kind" of the plans this family writes ("pipeline-plan"), and their comparison figures,
  // read as strictly as the plan is loaded (InputError naming `file` and the JSON path).
  virtual std::string_view plan_kind() const { return {}; }
  virtual PlanSummary summarize(const nlohmann::json& plan, const std::string& file) const;
  // Reads one of this family's plans as strictly (InputError naming `file`) and sets it on the
  // spec for its data planes; says which kind of plan it was. QueryError for plans that do not
  // run on a data plane.
  virtual PlanKind set_plan(SimulationSpec& spec, const nlohmann::json& plan, const std::string& file) const;

  // The options of this family's data planes and planners (option_schema.h), in the order
  // --help lists them; a name two families share is one flag that each reads its own way.
  virtual std::string_view title() const = 0;  // "Symphony", "pooled pipelines": for forms and errors
  virtual OptionSchema<SimulationSpec> simulation_options() const { return {}; }
  virtual OptionSchema<ScenarioPlanRequest> planner_options() const { return {}; }
};

}  // namespace servescope::engine
