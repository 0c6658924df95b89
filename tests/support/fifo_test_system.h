// A serving system that exists only to show the plug-in seam holds: one family, registered at
// run time, with a data plane ("test-fifo": every request alone, first come first served, on the
// GPUs in turn) and a planner ("test-plan": PPipe's MILP under another name). Registering it must
// be all it takes to see it in `simulate` and `plan --help`, in a simulation and in the GUI's
// planning dock (docs/architecture.md, "How to add a serving system").
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "engine/serving/plan_request.h"
#include "engine/serving/prepared_serving.h"
#include "engine/systems/ppipe/ppipe_system.h"
#include "engine/systems/system_registry.h"

namespace servescope::testing {

class FifoTestPlane final : public engine::DataPlane {
 public:
  FifoTestPlane(std::vector<engine::ScheduledModel> models, std::size_t gpus)
      : models_(std::move(models)), gpus_(gpus) {}
  std::string name() const override { return "test-fifo"; }
  void start(engine::DataPlaneContext& context) override { context_ = &context; }
  void on_request(const engine::Request& request) override {
    engine::Batch batch;
    batch.id = next_batch_++;
    batch.model = request.model;
    batch.gpu = static_cast<std::uint32_t>(next_gpu_++ % gpus_);
    batch.start = context_->clock.now();
    batch.predicted_end = batch.start + models_[request.model].latency.at(1);
    batch.requests = {request};
    context_->executor.execute(std::move(batch));
  }
  void on_timer(std::uint64_t) override {}
  void on_batch_done(const engine::BatchDone&) override {}

 private:
  std::vector<engine::ScheduledModel> models_;
  std::size_t gpus_;
  engine::DataPlaneContext* context_ = nullptr;
  engine::BatchId next_batch_ = 1;
  std::size_t next_gpu_ = 0;
};

// Its own options, as a plug-in has them: nothing in the engine, the CLI or the GUI names them.
struct FifoTestOptions {
  int gpus = 0;  // serve on the first this many GPUs; 0: all
};

class FifoTestFamily final : public engine::ServingFamily {
 public:
  std::string_view title() const override { return "test FIFO"; }
  engine::OptionSchema<engine::SimulationSpec> simulation_options() const override {
    engine::OptionSchema<FifoTestOptions> o;
    o.integer("test-fifo-gpus", "GPUs used", "test-fifo: serve on the first this many GPUs (0: all)", 0, 1 << 20,
              [](FifoTestOptions& f) -> int& { return f.gpus; });
    return o.lift<engine::SimulationSpec>(
        [](engine::SimulationSpec& spec) -> FifoTestOptions& { return spec.edit_options<FifoTestOptions>(); });
  }
  engine::OptionSchema<engine::ScenarioPlanRequest> planner_options() const override {
    engine::OptionSchema<engine::ScenarioPlanRequest> o;
    o.real("test-plan-limit", "Test solver limit", "test-plan: seconds its solver may take", 0.1, 3600,
           [](engine::ScenarioPlanRequest& r) -> double& { return r.ppipe.time_limit_s; });
    return o;
  }
  std::vector<engine::DataPlaneTraits> data_planes() const override {
    engine::DataPlaneTraits t;
    t.name = "test-fifo";
    return {t};
  }
  void place(const Scenario&, const engine::SimulationSpec&, engine::PreparedServing& prepared) const override {
    prepared.result.nominal_capacity_rps = engine::nominal_capacity_rps(prepared.setup);
  }
  void build(const Scenario&, const engine::SimulationSpec& spec, engine::PreparedServing& prepared) const override {
    const auto& setup = prepared.setup;
    const auto wanted = static_cast<std::size_t>(spec.options<FifoTestOptions>().gpus);
    prepared.plane = std::make_unique<FifoTestPlane>(
        setup.models, wanted > 0 ? std::min(wanted, setup.gpus.size()) : setup.gpus.size());
    std::vector<engine::BatchLatency> exec;
    for (const auto& m : setup.models)
      exec.push_back(m.latency);
    prepared.times = engine::ExecutionTimes::uniform(std::move(exec), setup.gpus.size());
    engine::describe_unsplit(prepared);
  }
  std::vector<std::string> planners() const override { return {"test-plan"}; }
  engine::PlannerFamily planner_family() const override { return engine::PlannerFamily::Pipeline; }
  engine::ScenarioPlanResult plan(const Scenario& scenario, const engine::ScenarioPlanRequest& request) const override {
    auto as_ppipe = request;
    as_ppipe.system = "ppipe";
    return ppipe_->plan(scenario, as_ppipe);
  }

 private:
  std::unique_ptr<engine::ServingFamily> ppipe_ = engine::ppipe_family();
};

// Registers the family once per process (the registry refuses a name twice).
inline void register_fifo_test_system() {
  static const bool registered = [] {
    engine::SystemRegistry::instance().add(std::make_unique<FifoTestFamily>());
    return true;
  }();
  (void)registered;
}

}  // namespace servescope::testing
