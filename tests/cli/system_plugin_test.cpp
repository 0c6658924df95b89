// A serving system registered at run time (tests/support/fifo_test_system.h) is everywhere the
// built-in ones are, with no list to edit: `simulate --help` and `plan --help` name it, the CLI
// runs it, the simulator serves with it, and the registry refuses a second system of its name.
#include <gtest/gtest.h>
#include <memory>
#include <string>
#include <vector>

#include "app/cli/cli_context.h"
#include "app/cli/simulation_args.h"
#include "engine/serving/run_result_json.h"
#include "engine/systems/scenario_planner.h"
#include "engine/systems/scenario_simulation.h"
#include "model/io/document.h"
#include "tests/support/fifo_test_system.h"

namespace servescope {
namespace {

class SystemPlugin : public ::testing::Test {
 protected:
  void SetUp() override { testing::register_fifo_test_system(); }
};

Scenario demo() {
  return project_from_document(load_document("builtin:projects/demo.json"), "demo").scenario;
}

struct Cli {
  CLI::App app{"servescope-cli"};
  cli::GlobalOptions global;
  cli::CommandBody run;
  Cli() {
    cli::add_simulate_command(app, global, run);
    cli::add_plan_command(app, global, run);
  }
  std::string help(const std::string& command) { return app.get_subcommand(command)->help(); }
};

TEST_F(SystemPlugin, TheRegistryListsItAfterTheBuiltInSystems) {
  const auto systems = engine::simulation_systems();
  ASSERT_FALSE(systems.empty());
  EXPECT_EQ(systems.front(), "symphony");
  EXPECT_EQ(systems.back(), "test-fifo");
  EXPECT_EQ(engine::data_plane_traits("test-fifo").runs, engine::PlanKind::None);
  EXPECT_EQ(engine::scenario_planners().back().second, "test-plan");
  EXPECT_TRUE(engine::is_planner("test-plan"));
  EXPECT_THROW(engine::SystemRegistry::instance().add(std::make_unique<testing::FifoTestFamily>()), QueryError);
}

TEST_F(SystemPlugin, TheCommandLineOffersItInHelpAndRunsIt) {
  Cli cli;
  EXPECT_NE(cli.help("simulate").find("test-fifo"), std::string::npos) << cli.help("simulate");
  EXPECT_NE(cli.help("plan").find("test-plan"), std::string::npos) << cli.help("plan");
  cli.app.parse("simulate -s builtin:projects/demo.json --system test-fifo -d 2 --warmup 0.5", false);
  ASSERT_TRUE(cli.run);
  EXPECT_EQ(cli.run(), cli::kExitOk);
}

// Its options come from its schema: a flag with help and default in `simulate --help` and
// `plan --help`, written into its own part of the spec, refused for the systems of other families
// and checked against their range.
TEST_F(SystemPlugin, ItsOptionsAreFlagsOnlyItTakes) {
  Cli cli;
  const auto help = cli.help("simulate");
  EXPECT_NE(help.find("--test-fifo-gpus"), std::string::npos) << help;
  EXPECT_NE(help.find("serve on the first this many GPUs"), std::string::npos) << help;
  EXPECT_NE(cli.help("plan").find("--test-plan-limit"), std::string::npos) << cli.help("plan");

  cli::SimulationArgs args;
  CLI::App app;
  args.add_to(&app);
  app.parse("-s builtin:projects/demo.json --system test-fifo --test-fifo-gpus 1", false);
  const auto spec = args.to_spec();
  EXPECT_EQ(spec.options<testing::FifoTestOptions>().gpus, 1);
  auto run_spec = spec;
  run_spec.duration = Duration::seconds(2);
  run_spec.warmup = Duration::milliseconds(500);
  run_spec.load_factor = 0.05;
  const auto result = engine::simulate(demo(), run_spec);
  EXPECT_EQ(engine::summarize_run(result).gpus_used, 1);

  cli::SimulationArgs other;
  CLI::App other_app;
  other.add_to(&other_app);
  other_app.parse("-s builtin:projects/demo.json --system symphony --test-fifo-gpus 1", false);
  try {
    other.to_spec();
    ADD_FAILURE() << "symphony took --test-fifo-gpus";
  } catch (const CLI::ValidationError& e) {
    EXPECT_NE(std::string(e.what()).find("symphony (Symphony) does not take it; it is an option of test FIFO"),
              std::string::npos)
        << e.what();
  }
  cli::SimulationArgs bad;
  CLI::App bad_app;
  bad.add_to(&bad_app);
  EXPECT_THROW(bad_app.parse("-s builtin:projects/demo.json --system test-fifo --test-fifo-gpus -2", false),
               CLI::ValidationError);
}

TEST_F(SystemPlugin, TheSimulatorServesWithItAndThePlannerPlansWithIt) {
  const auto scenario = demo();
  engine::SimulationSpec spec;
  spec.system = "test-fifo";
  spec.duration = Duration::seconds(2);
  spec.warmup = Duration::milliseconds(500);
  spec.load_factor = 0.2;
  const auto result = engine::simulate(scenario, spec);
  EXPECT_EQ(result.system, "test-fifo");
  EXPECT_GT(result.sim.arrivals, 0u);
  // Each batch carries one request: batches and arrivals agree.
  EXPECT_EQ(result.sim.batches, result.sim.arrivals);
  const auto summary = engine::summarize_run(result);
  EXPECT_GT(summary.completed, 0u);
  EXPECT_GT(summary.on_time, 0u);

  engine::ScenarioPlanRequest request;
  request.system = "test-plan";
  EXPECT_EQ(engine::planner_family("test-plan"), engine::PlannerFamily::Pipeline);
  const auto ppipe_demo = project_from_document(load_document("builtin:projects/ppipe-demo.json"), "p").scenario;
  const auto planned = engine::plan_scenario(ppipe_demo, request);
  EXPECT_TRUE(planned.summary.feasible);
}

}  // namespace
}  // namespace servescope
