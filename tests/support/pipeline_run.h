// The pipeline fixture's scenario planned by PPipe and simulated on its reservation data plane
// with a timeline: what timeline tests look at (stages linked across vGPUs, transfers on NICs,
// requests and drops).
#pragma once

#include <memory>

#include "engine/ppipe/scenario_planning.h"
#include "engine/systems/ppipe/ppipe_options.h"
#include "engine/systems/scenario_planner.h"
#include "engine/systems/scenario_simulation.h"
#include "engine/timeline/timeline_data.h"
#include "model/io/document.h"
#include "tests/support/pipeline_fixture.h"
#include "tests/support/test_support.h"

namespace servescope::test {

inline engine::TimelineData simulate_pipeline_timeline(double load_factor, Duration duration) {
  TempDir dir;
  const auto scenario = load_scenario(dir.write("s.json", kPipelineScenarioJson));
  const auto plan =
      engine::plan_pipelines("ppipe", engine::planning_input(scenario, {"seg-poisson"}), engine::PpipeOptions{});
  engine::SimulationSpec spec;
  spec.system = "reservation";
  spec.workloads = {"seg-poisson"};
  spec.edit_options<engine::PipelineRunOptions>().plan = std::make_shared<const engine::PipelinePlan>(plan);
  spec.load_factor = load_factor;
  spec.duration = duration;
  spec.warmup = Duration::seconds(1);
  spec.timeline = true;
  return engine::timeline_of(engine::simulate(scenario, spec));
}

}  // namespace servescope::test
