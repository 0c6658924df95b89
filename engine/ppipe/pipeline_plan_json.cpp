#include "engine/ppipe/pipeline_plan_json.h"

#include "model/io/file_io.h"
#include "model/io/json_cursor.h"
#include "model/workload/workload.h"

namespace servescope::engine {
namespace {

double us(Duration d) {
  return d.to_us();
}

}  // namespace

nlohmann::json pipeline_plan_to_json(const PipelinePlan& plan, const std::string& scenario_name) {
  nlohmann::json models = nlohmann::json::array();
  for (const auto& m : plan.models)
    models.push_back({{"name", m.name},
                      {"slo_us", us(m.slo)},
                      {"planning_slo_us", us(m.planning_slo)},
                      {"weight", m.weight},
                      {"throughput_rps", m.throughput_rps}});
  nlohmann::json pipelines = nlohmann::json::array();
  for (const auto& p : plan.pipelines) {
    nlohmann::json parts = nlohmann::json::array();
    for (const auto& d : p.partitions)
      parts.push_back({{"gpu", d.gpu},
                       {"vgpu_divisor", d.vgpu_divisor},
                       {"blocks", {d.blocks.begin, d.blocks.end}},
                       {"vgpus", d.vgpus},
                       {"gpus", d.gpus},
                       {"latency_us", us(d.latency)},
                       {"transfer_us", us(d.transfer)},
                       {"transfer_bytes", d.transfer_bytes},
                       {"capacity_rps", d.capacity_rps}});
    pipelines.push_back({{"model", p.model},
                         {"batch", p.batch},
                         {"latency_us", us(p.latency)},
                         {"batch_forming_us", us(p.batch_forming)},
                         {"assigned_rps", p.assigned_rps},
                         {"capacity_rps", p.capacity_rps},
                         {"partitions", std::move(parts)}});
  }
  const auto& s = plan.solve;
  auto stages = nlohmann::json::array();
  for (const auto& st : s.stages)
    stages.push_back({{"level", st.level}, {"fixed_models", st.fixed_models}, {"seconds", st.seconds}});
  return {{"schema_version", kSchemaVersion},
          {"kind", "pipeline-plan"},
          {"system", plan.system},
          {"scenario", scenario_name},
          {"total_throughput_rps", plan.total_throughput_rps()},
          {"models", std::move(models)},
          {"pipelines", std::move(pipelines)},
          {"solve",
           {{"status", s.status},
            {"proven_optimal", s.proven_optimal},
            {"solver", s.solver},
            {"objective_kind", s.objective_kind},
            {"objective", s.objective},
            {"best_bound", s.best_bound},
            {"gap", s.gap},
            {"seconds", s.seconds},
            {"enumerated_columns", s.enumerated_columns},
            {"columns", s.columns},
            {"variables", s.variables},
            {"rows", s.rows},
            {"stages", std::move(stages)}}},
          {"notes", plan.notes}};
}

PipelinePlan pipeline_plan_from_json(const nlohmann::json& json, const std::string& file) {
  const JsonCursor root(json, file);
  expect_document_header(root, "pipeline-plan");
  root.expect_object({"schema_version", "kind", "system", "scenario", "total_throughput_rps", "models", "pipelines",
                      "solve", "notes"});
  PipelinePlan plan;
  plan.system = root.at("system").as_string();
  // Derived from the models on write and recomputed on read, but a value no plan can have is
  // still a sign of a broken file.
  root.double_or("total_throughput_rps", 0, 0, kMaxRateRps);
  const auto models = root.at("models");
  for (std::size_t i = 0; i < models.size(); ++i) {
    const auto m = models[i];
    m.expect_object({"name", "slo_us", "planning_slo_us", "weight", "throughput_rps"});
    plan.models.push_back({m.at("name").as_string(), m.at("slo_us").as_duration_us(1),
                           m.at("planning_slo_us").as_duration_us(0), m.double_or("weight", 1, 1e-12, 1e12),
                           m.at("throughput_rps").as_double(0, kMaxRateRps)});
  }
  const auto pipelines = root.at("pipelines");
  for (std::size_t i = 0; i < pipelines.size(); ++i) {
    const auto p = pipelines[i];
    p.expect_object({"model", "batch", "latency_us", "batch_forming_us", "assigned_rps", "capacity_rps", "partitions"});
    PlannedPipeline pipe;
    pipe.model = p.at("model").as_string();
    if (std::ranges::none_of(plan.models, [&](const PlannedModel& m) { return m.name == pipe.model; }))
      p.at("model").fail("names no model of the plan's \"models\"");
    pipe.batch = static_cast<int>(p.at("batch").as_int(1, kMaxBatchSize));
    pipe.latency = p.at("latency_us").as_duration_us();
    pipe.batch_forming = p.at("batch_forming_us").as_duration_us();
    pipe.assigned_rps = p.at("assigned_rps").as_double(0, kMaxRateRps);
    pipe.capacity_rps = p.at("capacity_rps").as_double(0, kMaxRateRps);
    const auto parts = p.at("partitions");
    if (parts.size() == 0) parts.fail("a pipeline needs at least one partition");
    int next_block = 0;
    for (std::size_t d = 0; d < parts.size(); ++d) {
      const auto c = parts[d];
      c.expect_object({"gpu", "vgpu_divisor", "blocks", "vgpus", "gpus", "latency_us", "transfer_us", "transfer_bytes",
                       "capacity_rps"});
      PlannedPartition part;
      part.gpu = c.at("gpu").as_string();
      part.vgpu_divisor = static_cast<int>(c.at("vgpu_divisor").as_int(1, 64));
      const auto blocks = c.at("blocks");
      if (blocks.size() != 2) blocks.fail("expected [first block, one past the last]");
      part.blocks = {static_cast<int>(blocks[0].as_int(0, kMaxBlocks)),
                     static_cast<int>(blocks[1].as_int(1, kMaxBlocks))};
      if (part.blocks.begin != next_block || part.blocks.end <= part.blocks.begin)
        blocks.fail("blocks must continue where the previous partition ended (at " + std::to_string(next_block) +
                    ") and be non-empty");
      next_block = part.blocks.end;
      part.vgpus = static_cast<int>(c.at("vgpus").as_int(1, 1 << 24));
      part.gpus = static_cast<int>(c.at("gpus").as_int(1, 1 << 24));
      if (part.gpus * part.vgpu_divisor < part.vgpus)
        c.at("vgpus").fail(std::to_string(part.vgpus) + " vGPUs of 1/" + std::to_string(part.vgpu_divisor) +
                           " do not fit on " + std::to_string(part.gpus) + " GPUs");
      part.latency = c.at("latency_us").as_duration_us(0);
      part.transfer = c.at("transfer_us").as_duration_us();
      if (const auto bytes = c.find("transfer_bytes"))  // plans from before it was kept lack it
        part.transfer_bytes = bytes->as_int(0, std::int64_t{1} << 50);
      part.capacity_rps = c.at("capacity_rps").as_double(0, kMaxRateRps);
      pipe.partitions.push_back(std::move(part));
    }
    plan.pipelines.push_back(std::move(pipe));
  }
  if (const auto s = root.find("solve")) {
    auto& st = plan.solve;
    st.status = s->string_or("status", "");
    st.proven_optimal = s->bool_or("proven_optimal", false);
    st.objective = s->double_or("objective", 0, -1e300, 1e300);
    st.best_bound = s->double_or("best_bound", 0, -1e300, 1e300);
    st.gap = s->double_or("gap", 0, -1e300, 1e300);
    st.seconds = s->double_or("seconds", 0, 0, 1e12);
    st.enumerated_columns = static_cast<int>(s->int_or("enumerated_columns", 0, 0, INT32_MAX));
    st.columns = static_cast<int>(s->int_or("columns", 0, 0, INT32_MAX));
    st.variables = static_cast<int>(s->int_or("variables", 0, 0, INT32_MAX));
    st.rows = static_cast<int>(s->int_or("rows", 0, 0, INT32_MAX));
    st.solver = s->string_or("solver", "");
    st.objective_kind = s->string_or("objective_kind", "");
    if (const auto stages = s->find("stages"))
      for (std::size_t i = 0; i < stages->size(); ++i) {
        const auto t = (*stages)[i];
        t.expect_object({"level", "fixed_models", "seconds"});
        PlanSolveStage stage;
        stage.level = t.at("level").as_double(0, kMaxRateRps);
        const auto fixed = t.at("fixed_models");
        for (std::size_t k = 0; k < fixed.size(); ++k)
          stage.fixed_models.push_back(fixed[k].as_string());
        stage.seconds = t.double_or("seconds", 0, 0, 1e12);
        st.stages.push_back(std::move(stage));
      }
  }
  if (const auto notes = root.find("notes"))
    for (std::size_t i = 0; i < notes->size(); ++i)
      plan.notes.push_back((*notes)[i].as_string(true));
  return plan;
}

PipelinePlan load_pipeline_plan(const std::string& path) {
  return pipeline_plan_from_json(parse_json_text(read_text_file(path), path), path);
}

}  // namespace servescope::engine
