// A command's flags made from the serving families' option schemas (engine/serving/option_schema.h):
// one flag per option name, in the order the registry lists the families, with its help, range
// or choices and default. After parsing, the flags given are checked and written into the spec
// or request through the chosen system's family; a flag no option of that family has is refused
// by name, not ignored.
#pragma once

#include <CLI/CLI.hpp>
#include <memory>
#include <string>
#include <vector>

#include "engine/serving/option_schema.h"
#include "engine/serving/serving_system.h"

namespace servescope::cli {

template <class Target>
class FamilyFlags {
 public:
  struct Group {
    const engine::ServingFamily* family = nullptr;
    engine::OptionSchema<Target> schema;
  };

  // Adds the groups' flags to `cmd`; defaults are read from `defaults`.
  void add_to(CLI::App* cmd, std::vector<Group> groups, const Target& defaults = Target{});
  // Writes the flags given into `target` through `family`'s options; CLI::ValidationError naming
  // the flag for a value the option refuses or a flag `system` does not take.
  void apply(Target& target, const engine::ServingFamily& family, const std::string& system) const;

 private:
  struct Flag {
    engine::OptionSpec spec;
    CLI::Option* option = nullptr;
    std::string text;
    std::vector<std::string> list;
    bool on = false;
  };
  std::vector<Group> groups_;
  std::vector<std::unique_ptr<Flag>> flags_;  // CLI11 writes into them: stable addresses
};

// The registry's families, each with its data planes' options / its planners' options.
std::vector<FamilyFlags<engine::SimulationSpec>::Group> simulation_option_groups();
std::vector<FamilyFlags<engine::ScenarioPlanRequest>::Group> planner_option_groups();

}  // namespace servescope::cli
