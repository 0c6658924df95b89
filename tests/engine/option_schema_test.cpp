// Options as data (engine/serving/option_schema.h): values parse and check against their type
// and range the same way for the CLI and the GUI, and every built-in family's options read and
// write the field they name, so a default written back changes nothing and a value written is
// the value read.
#include "engine/serving/option_schema.h"

#include <gtest/gtest.h>

#include "engine/serving/plan_request.h"
#include "engine/systems/ppipe/ppipe_options.h"
#include "engine/systems/symphony/symphony_options.h"
#include "engine/systems/system_registry.h"
#include "model/core/error.h"

namespace servescope::engine {
namespace {

OptionSpec spec_of(OptionType type, double min = -1e9, double max = 1e9) {
  OptionSpec s;
  s.name = "x";
  s.type = type;
  s.min = min;
  s.max = max;
  return s;
}

TEST(OptionSchema, ValuesParseByTypeAndRange) {
  EXPECT_EQ(std::get<std::int64_t>(parse_option_value(spec_of(OptionType::Integer, 1, 3), "2")), 2);
  EXPECT_THROW(parse_option_value(spec_of(OptionType::Integer, 1, 3), "4"), QueryError);
  EXPECT_THROW(parse_option_value(spec_of(OptionType::Integer, 1, 3), "2.5"), QueryError);
  EXPECT_DOUBLE_EQ(std::get<double>(parse_option_value(spec_of(OptionType::Real, 0, 1), " 0.25 ")), 0.25);
  EXPECT_THROW(parse_option_value(spec_of(OptionType::Real, 0, 1), "nan"), QueryError);
  EXPECT_THROW(parse_option_value(spec_of(OptionType::Real, 0, 1), "1.5"), QueryError);
  EXPECT_THROW(parse_option_value(spec_of(OptionType::Real, 0, 1), "0.5x"), QueryError);
  // Lists take ranges ("1-3"), each item within the option's range.
  EXPECT_EQ(std::get<std::vector<int>>(parse_option_value(spec_of(OptionType::IntegerList, 1, 100), "1-3,8")),
            (std::vector<int>{1, 2, 3, 8}));
  EXPECT_THROW(parse_option_value(spec_of(OptionType::IntegerList, 1, 100), "50,150"), QueryError);
  EXPECT_THROW(parse_option_value(spec_of(OptionType::IntegerList, 1, 100), "1,,2"), QueryError);
  EXPECT_THROW(parse_option_value(spec_of(OptionType::IntegerList, 1, 100), "4-2"), QueryError);
  auto choice = spec_of(OptionType::Choice);
  choice.choices = {"paper", "artifact"};
  EXPECT_EQ(std::get<std::string>(parse_option_value(choice, "artifact")), "artifact");
  try {
    parse_option_value(choice, "other");
    ADD_FAILURE();
  } catch (const QueryError& e) {
    EXPECT_NE(std::string(e.what()).find("not one of paper, artifact"), std::string::npos) << e.what();
  }
  EXPECT_EQ(format_option_value(std::vector<int>{1, 2, 4}), "1,2,4");
  EXPECT_EQ(format_option_value(0.4), "0.4");
}

// A family's options live in their own part of the spec: writing them through the schema sets
// that part and nothing of the common spec.
TEST(OptionSchema, FamilyOptionsLandInTheirOwnPartOfTheSpec) {
  const auto schema = symphony_simulation_options();
  SimulationSpec spec;
  schema.find("subclusters")->write(spec, std::int64_t{3});
  schema.find("batch-policy")->write(spec, std::string("greedy"));
  schema.find("ctrl-delay-us")->write(spec, 250.0);
  const auto& o = spec.options<SymphonyRunOptions>();
  EXPECT_EQ(o.subclusters, 3);
  EXPECT_EQ(o.batch_rule, BatchRule::Greedy);
  EXPECT_EQ(o.deferred.d_ctrl, Duration::microseconds(250));
  EXPECT_EQ(std::get<std::int64_t>(schema.find("subclusters")->read(spec)), 3);
  // Another family's part is untouched and reads its defaults.
  EXPECT_FALSE(spec.options<PipelineRunOptions>().plan);
  EXPECT_TRUE(spec.options<PipelineRunOptions>().reservation.feedback);
  // --no-feedback writes the negation of what it names.
  const auto pipeline = pipeline_simulation_options();
  pipeline.find("no-feedback")->write(spec, true);
  EXPECT_FALSE(spec.options<PipelineRunOptions>().reservation.feedback);
  EXPECT_EQ(spec.options<SymphonyRunOptions>().subclusters, 3);
}

// Every option of every registered family: its default is a value its own check accepts, and
// writing it back leaves what it reads unchanged (an accessor that reads one field and writes
// another fails here).
TEST(OptionSchema, EveryBuiltInOptionReadsWhatItWrites) {
  std::size_t checked = 0;
  for (const auto& family : SystemRegistry::instance().families()) {
    const SimulationSpec spec_defaults;
    const auto simulation = family->simulation_options();
    for (const auto& o : simulation.options()) {
      const auto value = o.read(spec_defaults);
      EXPECT_NO_THROW(check_option_value(o.spec, value)) << family->title() << " --" << o.spec.name;
      SimulationSpec spec;
      o.write(spec, value);
      EXPECT_EQ(o.read(spec), value) << family->title() << " --" << o.spec.name;
      EXPECT_FALSE(o.spec.label.empty() || o.spec.help.empty()) << o.spec.name;
      ++checked;
    }
    const ScenarioPlanRequest request_defaults;
    const auto planning = family->planner_options();
    for (const auto& o : planning.options()) {
      const auto value = o.read(request_defaults);
      EXPECT_NO_THROW(check_option_value(o.spec, value)) << family->title() << " --" << o.spec.name;
      ScenarioPlanRequest request;
      o.write(request, value);
      EXPECT_EQ(o.read(request), value) << family->title() << " --" << o.spec.name;
      EXPECT_FALSE(o.spec.label.empty() || o.spec.help.empty()) << o.spec.name;
      ++checked;
    }
  }
  EXPECT_GE(checked, 45u);
}

}  // namespace
}  // namespace servescope::engine
