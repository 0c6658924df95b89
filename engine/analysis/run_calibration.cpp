#include "engine/analysis/run_calibration.h"

#include "engine/ppipe/pipeline_deployment.h"
#include "engine/systems/scenario_simulation.h"
#include "model/core/error.h"

namespace servescope::engine {

Calibration calibrate_run(const Scenario& scenario, const SimulationSpec& spec, const TimelineData& run,
                          const CalibrationOptions& options) {
  const auto prepared = prepare_serving(scenario, spec);
  const auto& placed = prepared.result;
  if (placed.gpus.size() != run.gpus.size())
    throw QueryError("the run has " + std::to_string(run.gpus.size()) + " slots; the scenario and plan place " +
                     std::to_string(placed.gpus.size()) + ": calibrate with the scenario, system and plan it ran");
  for (std::size_t g = 0; g < run.gpus.size(); ++g) {
    const bool same_type = g >= run.gpu_types.size() || run.gpu_types[g] == placed.gpu_types[g];
    const bool same_share = g >= run.gpu_shares.size() || run.gpu_shares[g] == placed.gpu_shares[g];
    if (run.gpus[g] != placed.gpus[g] || !same_type || !same_share)
      throw QueryError("slot " + std::to_string(g) + " of the run is " + run.gpus[g] + " (" +
                       (g < run.gpu_types.size() ? run.gpu_types[g] : std::string("?")) + " " +
                       (g < run.gpu_shares.size() ? run.gpu_shares[g] : std::string("?")) +
                       "); the scenario and plan place " + placed.gpus[g] + " (" + placed.gpu_types[g] + " " +
                       placed.gpu_shares[g] + ") there: calibrate with the scenario, system and plan it ran");
  }
  // Each slot's pipeline stages, by the run's model indices (the same names as the plane's).
  std::vector<std::map<std::uint32_t, BlockRange>> stage_blocks(run.gpus.size());
  if (const auto* deployment = prepared.pipeline_deployment)
    for (const auto& pipeline : deployment->pipelines) {
      const auto& name = deployment->models[pipeline.model];
      const auto model = std::ranges::find(run.models, name);
      if (model == run.models.end()) continue;
      for (const auto& stage : pipeline.stages)
        for (const auto slot : stage.pool)
          if (slot < stage_blocks.size())
            stage_blocks[slot][static_cast<std::uint32_t>(model - run.models.begin())] = stage.blocks;
    }
  return calibrate(scenario.profiles, run, stage_blocks, options);
}

}  // namespace servescope::engine
