// A project's saved plans and runs are read in full when it is opened: a body with a member of
// the wrong type is refused at its place in the project file, not thrown later from a view.
#include "engine/analysis/saved_artifacts.h"

#include <gtest/gtest.h>

#include "engine/serving/run_result_json.h"
#include "engine/systems/scenario_simulation.h"
#include "model/core/error.h"
#include "model/io/document.h"

namespace servescope::engine {
namespace {

Project project_with_a_run() {
  auto project = load_project("builtin:projects/demo.json");
  SimulationSpec spec;
  spec.duration = Duration::seconds(2);
  spec.warmup = Duration::milliseconds(500);
  const auto result = simulate(project.scenario, spec);
  project.runs.push_back({"r", "symphony", "", run_result_to_json(result, project.scenario.name)});
  return project;
}

std::string refusal(const Project& p) {
  try {
    check_saved_artifacts(p, "p.json");
  } catch (const InputError& e) {
    EXPECT_EQ(e.file(), "p.json");
    return e.where() + ": " + e.reason();
  }
  return "accepted";
}

TEST(SavedArtifacts, ARunAsTheSimulatorWroteItIsAccepted) {
  EXPECT_EQ(refusal(project_with_a_run()), "accepted");
}

// The summary a run file holds reads back as the RunSummary it was written from (latencies to the
// microsecond the file keeps): the writer and the reader are one pair.
TEST(SavedArtifacts, ARunsSummaryReadsBackAsWritten) {
  auto project = load_project("builtin:projects/demo.json");
  SimulationSpec spec;
  spec.duration = Duration::seconds(2);
  spec.warmup = Duration::milliseconds(500);
  const auto result = simulate(project.scenario, spec);
  const auto written = summarize_run(result);
  const auto json = run_result_to_json(result, project.scenario.name);
  const auto read = run_summary_from_json(JsonCursor(json, "run.json").at("summary"));
  EXPECT_EQ(read.arrivals, written.arrivals);
  EXPECT_EQ(read.completed, written.completed);
  EXPECT_EQ(read.on_time, written.on_time);
  EXPECT_EQ(read.late, written.late);
  EXPECT_EQ(read.dropped, written.dropped);
  EXPECT_EQ(read.unfinished, written.unfinished);
  EXPECT_DOUBLE_EQ(read.slo_attainment, written.slo_attainment);
  EXPECT_DOUBLE_EQ(read.goodput_rps, written.goodput_rps);
  EXPECT_NEAR(read.p50.to_us(), written.p50.to_us(), 1);
  EXPECT_NEAR(read.p99.to_us(), written.p99.to_us(), 1);
  EXPECT_NEAR(read.max.to_us(), written.max.to_us(), 1);
  EXPECT_DOUBLE_EQ(read.mean_batch, written.mean_batch);
  EXPECT_EQ(read.median_batch, written.median_batch);
  EXPECT_EQ(read.gpus_used, written.gpus_used);
  EXPECT_GT(read.completed, 0u);
}

TEST(SavedArtifacts, AMemberOfTheWrongTypeIsNamedAtItsPlaceInTheProject) {
  auto p = project_with_a_run();
  p.runs[0].body["summary"]["gpus_used"] = "many";
  EXPECT_EQ(refusal(p).rfind("$.runs[0].body.summary.gpus_used: expected an integer", 0), 0u) << refusal(p);
  p = project_with_a_run();
  p.runs[0].body["gpus"]["busy_by_type"] = nlohmann::json::array({1});
  EXPECT_EQ(refusal(p).rfind("$.runs[0].body.gpus.busy_by_type", 0), 0u) << refusal(p);
  p = project_with_a_run();
  p.runs[0].body["kind"] = "timeline";
  EXPECT_EQ(refusal(p).rfind("$.runs[0].body.kind", 0), 0u) << refusal(p);
}

TEST(SavedArtifacts, APlanThatIsNotAPlanIsRefused) {
  auto p = load_project("builtin:projects/demo.json");
  p.plans.push_back({"p", "ppipe", "", {{"kind", "pipeline-plan"}, {"pipelines", 7}}});
  EXPECT_EQ(refusal(p).rfind("$.plans[0].body", 0), 0u) << refusal(p);
}

}  // namespace
}  // namespace servescope::engine
