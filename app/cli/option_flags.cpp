#include "app/cli/option_flags.h"

#include <algorithm>

#include "engine/serving/plan_request.h"
#include "engine/systems/system_registry.h"
#include "model/core/error.h"

namespace servescope::cli {
namespace {

// Two families may declare one name (--response-delay-us, --batches): one flag, whose help says
// what each does with it.
std::string merged_help(const std::string& help, const std::string& more) {
  if (help.empty() || help == more) return more;
  return help + "; " + more;
}

void describe(CLI::Option* option, const engine::OptionSpec& spec) {
  using engine::OptionType;
  switch (spec.type) {
    case OptionType::Integer:
      // A bound no one reaches (a seed's) is checked by the schema, not printed.
      option->type_name(spec.max < 1e15 ? "INT" : "UINT");
      if (spec.max < 1e15)
        option->check(CLI::Range(static_cast<std::int64_t>(spec.min), static_cast<std::int64_t>(spec.max)));
      break;
    case OptionType::Real:
      option->type_name("FLOAT");
      option->check(CLI::Range(spec.min, spec.max));
      break;
    case OptionType::Choice:
      option->check(CLI::IsMember(spec.choices));
      break;
    case OptionType::IntegerList:
      option->type_name("LIST");
      break;
    default:
      break;
  }
  // What the schema checks beyond CLI11's own (a list's items, a range's ends).
  if (spec.type != OptionType::Flag && spec.type != OptionType::TextList)
    option->check(CLI::Validator(
        [spec](std::string& text) -> std::string {
          try {
            engine::parse_option_value(spec, text);
            return {};
          } catch (const QueryError& e) {
            return e.what();
          }
        },
        ""));
}

}  // namespace

template <class Target>
void FamilyFlags<Target>::add_to(CLI::App* cmd, std::vector<Group> groups, const Target& defaults) {
  groups_ = std::move(groups);
  for (const auto& group : groups_)
    for (const auto& bound : group.schema.options()) {
      const auto& spec = bound.spec;
      const auto same = std::ranges::find_if(flags_, [&](const auto& f) { return f->spec.name == spec.name; });
      if (same != flags_.end()) {
        // One flag is checked once: the families must agree on what it accepts.
        const auto& first = (*same)->spec;
        if (first.type != spec.type || first.min != spec.min || first.max != spec.max || first.choices != spec.choices)
          throw QueryError("two serving families declare --" + spec.name + " with different types or ranges");
        (*same)->option->description(merged_help((*same)->option->get_description(), spec.help));
        continue;
      }
      auto flag = std::make_unique<Flag>();
      flag->spec = spec;
      const std::string name = "--" + spec.name;
      if (spec.type == engine::OptionType::Flag) {
        flag->option = cmd->add_flag(name, flag->on, spec.help);
      } else if (spec.type == engine::OptionType::TextList) {
        flag->option = cmd->add_option(name, flag->list, spec.help);
      } else {
        flag->option = cmd->add_option(name, flag->text, spec.help);
        describe(flag->option, spec);
        if (spec.show_default) flag->option->default_str(engine::format_option_value(bound.read(defaults)));
      }
      flags_.push_back(std::move(flag));
    }
}

template <class Target>
void FamilyFlags<Target>::apply(Target& target, const engine::ServingFamily& family, const std::string& system) const {
  const auto group = std::ranges::find(groups_, &family, &Group::family);
  for (const auto& flag : flags_) {
    if (flag->option->count() == 0) continue;
    const std::string name = "--" + flag->spec.name;
    const auto* bound = group == groups_.end() ? nullptr : group->schema.find(flag->spec.name);
    if (!bound) {
      std::string owners;
      for (const auto& g : groups_)
        if (g.schema.find(flag->spec.name)) owners += (owners.empty() ? "" : ", ") + std::string(g.family->title());
      throw CLI::ValidationError(
          name, system + " (" + std::string(family.title()) + ") does not take it; it is an option of " + owners);
    }
    try {
      engine::OptionValue value;
      if (flag->spec.type == engine::OptionType::Flag)
        value = true;
      else if (flag->spec.type == engine::OptionType::TextList)
        value = flag->list;
      else
        value = engine::parse_option_value(bound->spec, flag->text);
      bound->write(target, value);
    } catch (const QueryError& e) {
      throw CLI::ValidationError(name, e.what());
    }
  }
}

template class FamilyFlags<engine::SimulationSpec>;
template class FamilyFlags<engine::ScenarioPlanRequest>;

std::vector<FamilyFlags<engine::SimulationSpec>::Group> simulation_option_groups() {
  std::vector<FamilyFlags<engine::SimulationSpec>::Group> out;
  for (const auto& family : engine::SystemRegistry::instance().families())
    if (!family->data_planes().empty()) out.push_back({family.get(), family->simulation_options()});
  return out;
}

std::vector<FamilyFlags<engine::ScenarioPlanRequest>::Group> planner_option_groups() {
  std::vector<FamilyFlags<engine::ScenarioPlanRequest>::Group> out;
  for (const auto& family : engine::SystemRegistry::instance().families())
    if (!family->planners().empty()) out.push_back({family.get(), family->planner_options()});
  return out;
}

}  // namespace servescope::cli
