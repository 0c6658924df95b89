// A serving family's options as data (docs/architecture.md, "Options"): each option's name (the
// command line's flag without "--"), help, type, default, range or choices, and how it reads and
// writes the spec or request it configures. The CLI makes its flags from it
// (app/cli/option_flags.h) and the GUI its forms (ui/option_form.h), so an option a family adds
// reaches both, checked the same way, by one declaration in the family's folder.
#pragma once

#include <cstdint>
#include <functional>
#include <limits>
#include <string>
#include <string_view>
#include <utility>
#include <variant>
#include <vector>

#include "model/core/time.h"

namespace servescope::engine {

enum class OptionType {
  Flag,         // on when given; off by default
  Integer,      // whole number within [min, max]
  Real,         // number within [min, max]
  Choice,       // one of `choices`
  Text,         // free text (a GPU type, say)
  IntegerList,  // "1,2,4": each within [min, max]
  TextList,     // repeatable on the command line ("--price T4=0.35 --price V100=2.5")
};

// What a form may offer beside a free text field.
enum class OptionHint {
  None,
  ClusterGpuType,  // one of the scenario's GPU types; empty means "the only one"
};

// Flag: bool; Integer: std::int64_t; Real: double; Choice and Text: std::string;
// IntegerList: std::vector<int>; TextList: std::vector<std::string>.
using OptionValue = std::variant<bool, std::int64_t, double, std::string, std::vector<int>, std::vector<std::string>>;

struct OptionSpec {
  std::string name;   // "partitions": --partitions on the command line
  std::string label;  // what a form calls it ("Partitions per pipeline")
  std::string help;
  OptionType type = OptionType::Real;
  double min = std::numeric_limits<double>::lowest();  // Integer, Real and IntegerList elements
  double max = std::numeric_limits<double>::max();
  std::vector<std::string> choices;  // Choice
  std::string unit;                  // a form's suffix (" s", " µs", " %")
  OptionHint hint = OptionHint::None;
  bool show_default = true;  // --help prints the default (off where "none" reads better in the help)
};

// The value `text` gives the option, checked against its type and range; QueryError saying what
// is wrong with it (without the option's name, which the caller knows how to spell).
OptionValue parse_option_value(const OptionSpec& option, std::string_view text);
// The value as the command line would give it ("1,2,4", "0.5", "gap-filling").
std::string format_option_value(const OptionValue& value);
// QueryError unless the value has the option's type and lies in its range.
void check_option_value(const OptionSpec& option, const OptionValue& value);

// An option's description with its name, label, help and type; range, choices, unit and hint
// are set on it after.
inline OptionSpec option_spec(std::string name, std::string label, std::string help, OptionType type) {
  OptionSpec s;
  s.name = std::move(name);
  s.label = std::move(label);
  s.help = std::move(help);
  s.type = type;
  return s;
}

template <class Target>
struct BoundOption {
  OptionSpec spec;
  std::function<OptionValue(const Target&)> read;
  std::function<void(Target&, const OptionValue&)> write;  // the value is checked already
};

// A family's options for one kind of target (a SimulationSpec, a ScenarioPlanRequest), built
// from accessors that return the field each option sets:
//   schema.real("margin", "SLO margin", "Fraction of the SLO held back", 0, 0.95,
//               [](ScenarioPlanRequest& r) -> double& { return r.ppipe.slo_margin; });
template <class Target>
class OptionSchema {
 public:
  using Option = BoundOption<Target>;

  OptionSpec& add(OptionSpec spec, std::function<OptionValue(const Target&)> read,
                  std::function<void(Target&, const OptionValue&)> write) {
    options_.push_back(Option{std::move(spec), std::move(read), std::move(write)});
    return options_.back().spec;
  }

  template <class Access>
  OptionSpec& flag(std::string name, std::string label, std::string help, Access field) {
    return bind<bool>(spec(std::move(name), std::move(label), std::move(help), OptionType::Flag), field);
  }
  // A flag that turns a setting off ("--no-feedback" clears `feedback`).
  template <class Access>
  OptionSpec& negated_flag(std::string name, std::string label, std::string help, Access field) {
    return add(
        spec(std::move(name), std::move(label), std::move(help), OptionType::Flag),
        [field](const Target& t) -> OptionValue {
          Target copy = t;
          return !field(copy);
        },
        [field](Target& t, const OptionValue& v) { field(t) = !std::get<bool>(v); });
  }
  template <class Access>
  OptionSpec& integer(std::string name, std::string label, std::string help, double min, double max, Access field) {
    auto s = spec(std::move(name), std::move(label), std::move(help), OptionType::Integer);
    s.min = min;
    s.max = max;
    return add(
        std::move(s),
        [field](const Target& t) -> OptionValue {
          Target copy = t;
          return static_cast<std::int64_t>(field(copy));
        },
        [field](Target& t, const OptionValue& v) {
          using Field = std::remove_reference_t<decltype(field(t))>;
          field(t) = static_cast<Field>(std::get<std::int64_t>(v));
        });
  }
  template <class Access>
  OptionSpec& real(std::string name, std::string label, std::string help, double min, double max, Access field) {
    auto s = spec(std::move(name), std::move(label), std::move(help), OptionType::Real);
    s.min = min;
    s.max = max;
    return bind<double>(std::move(s), field);
  }
  // A Duration given as a number of `unit_s` seconds (1: seconds; 1e-6: microseconds).
  template <class Access>
  OptionSpec& duration(std::string name, std::string label, std::string help, double min, double max, double unit_s,
                       Access field) {
    auto s = spec(std::move(name), std::move(label), std::move(help), OptionType::Real);
    s.min = min;
    s.max = max;
    return add(
        std::move(s),
        [field, unit_s](const Target& t) -> OptionValue {
          Target copy = t;
          return field(copy).to_s() / unit_s;
        },
        [field, unit_s](Target& t, const OptionValue& v) {
          field(t) = Duration::from_s(std::get<double>(v) * unit_s);
        });
  }
  template <class Access>
  OptionSpec& text(std::string name, std::string label, std::string help, Access field) {
    return bind<std::string>(spec(std::move(name), std::move(label), std::move(help), OptionType::Text), field);
  }
  template <class Access>
  OptionSpec& integer_list(std::string name, std::string label, std::string help, double min, double max,
                           Access field) {
    auto s = spec(std::move(name), std::move(label), std::move(help), OptionType::IntegerList);
    s.min = min;
    s.max = max;
    return bind<std::vector<int>>(std::move(s), field);
  }
  template <class Access>
  OptionSpec& text_list(std::string name, std::string label, std::string help, Access field) {
    return bind<std::vector<std::string>>(
        spec(std::move(name), std::move(label), std::move(help), OptionType::TextList), field);
  }
  // One of named values of any type (an enum, an optional): {{"greedy", BatchRule::Greedy}, …}.
  template <class Value, class Access>
  OptionSpec& choice(std::string name, std::string label, std::string help,
                     std::vector<std::pair<std::string, Value>> values, Access field) {
    auto s = spec(std::move(name), std::move(label), std::move(help), OptionType::Choice);
    for (const auto& [word, value] : values)
      s.choices.push_back(word);
    return add(
        std::move(s),
        [field, values](const Target& t) -> OptionValue {
          Target copy = t;
          for (const auto& [word, value] : values)
            if (field(copy) == value) return word;
          return values.front().first;
        },
        [field, values](Target& t, const OptionValue& v) {
          for (const auto& [word, value] : values)
            if (word == std::get<std::string>(v)) field(t) = value;
        });
  }

  // This schema over a larger target that holds ours (a family's options inside a spec).
  template <class Whole, class Part>
  OptionSchema<Whole> lift(Part part) const {
    OptionSchema<Whole> out;
    for (const auto& o : options_)
      out.add(
          o.spec,
          [read = o.read, part](const Whole& w) {
            Whole copy = w;
            return read(part(copy));
          },
          [write = o.write, part](Whole& w, const OptionValue& v) { write(part(w), v); });
    return out;
  }

  const std::vector<Option>& options() const { return options_; }
  const Option* find(std::string_view name) const {
    for (const auto& o : options_)
      if (o.spec.name == name) return &o;
    return nullptr;
  }
  void append(const OptionSchema& other) {
    options_.insert(options_.end(), other.options_.begin(), other.options_.end());
  }

 private:
  static OptionSpec spec(std::string name, std::string label, std::string help, OptionType type) {
    return option_spec(std::move(name), std::move(label), std::move(help), type);
  }
  template <class Value, class Access>
  OptionSpec& bind(OptionSpec s, Access field) {
    return add(
        std::move(s),
        [field](const Target& t) -> OptionValue {
          Target copy = t;  // accessors return a mutable field; reading never changes the target
          return static_cast<Value>(field(copy));
        },
        [field](Target& t, const OptionValue& v) { field(t) = std::get<Value>(v); });
  }

  std::vector<Option> options_;
};

}  // namespace servescope::engine
