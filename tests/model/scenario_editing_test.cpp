// Editing a scenario's applications as wholes (model/scenario/scenario_editing.h): a fresh name,
// an application to start drawing from (with or without profiled models), and a rename that the
// workloads follow; each refusal says why and changes nothing.
#include "model/scenario/scenario_editing.h"

#include <gtest/gtest.h>

#include "model/core/error.h"
#include "model/workload/rate_segments_text.h"

using namespace servescope;

namespace {

Scenario with_one_application() {
  Scenario s;
  Application app;
  app.name = "camera";
  app.slo = Duration::milliseconds(200);
  app.modules = {{"detect", ModuleKind::Dnn, "yolo", {}, 1}};
  s.applications.push_back(app);
  Workload frames;
  frames.name = "frames";
  frames.targets = {{TargetKind::Application, "camera", 1, {}}, {TargetKind::Model, "camera", 1, {}}};
  s.workloads.push_back(frames);
  return s;
}

}  // namespace

TEST(ScenarioEditing, UniqueApplicationNames) {
  auto s = with_one_application();
  EXPECT_EQ(unique_application_name(s, "pipeline"), "pipeline");
  EXPECT_EQ(unique_application_name(s, "camera"), "camera 2");
  s.applications.push_back(s.applications.front());
  s.applications.back().name = "camera 2";
  EXPECT_EQ(unique_application_name(s, "camera"), "camera 3");
  EXPECT_EQ(unique_application_name(s, ""), "application");
}

TEST(ScenarioEditing, AStarterHasOneModuleToDrawFrom) {
  Scenario empty;
  const auto cpu = starter_application(empty, "new");
  EXPECT_EQ(cpu.name, "new");
  ASSERT_EQ(cpu.modules.size(), 1u);
  EXPECT_EQ(cpu.modules[0].kind, ModuleKind::Cpu);
  EXPECT_EQ(cpu.modules[0].cpu_latency, Duration::milliseconds(1));
  EXPECT_EQ(cpu.slo, Duration::milliseconds(100));

  Scenario profiled;
  ModelProfile resnet;
  resnet.name = "resnet50";
  resnet.default_slo = Duration::milliseconds(50);
  profiled.profiles.models = {resnet};
  const auto dnn = starter_application(profiled, "vision");
  ASSERT_EQ(dnn.modules.size(), 1u);
  EXPECT_EQ(dnn.modules[0].kind, ModuleKind::Dnn);
  EXPECT_EQ(dnn.modules[0].model, "resnet50");
  EXPECT_EQ(dnn.slo, Duration::milliseconds(50));
}

// Issue 47 §1: an application's SLO until its user sets one comes from its modules: the
// costliest source-to-sink path, a DNN at its model's default SLO, a CPU step at its latency.
TEST(ScenarioEditing, TheDerivedSloIsTheCostliestPath) {
  ProfileSet profiles;
  for (const auto& [name, ms] : {std::pair{"detect", 20}, {"classify", 8}, {"ocr", 30}}) {
    ModelProfile m;
    m.name = name;
    m.default_slo = Duration::milliseconds(ms);
    profiles.models.push_back(m);
  }
  Application app;
  app.modules = {{"detect", ModuleKind::Dnn, "detect", {}, 1},
                 {"crop", ModuleKind::Cpu, {}, Duration::milliseconds(2), 1},
                 {"classify", ModuleKind::Dnn, "classify", {}, 1},
                 {"ocr", ModuleKind::Dnn, "ocr", {}, 1}};
  app.edges = {{"detect", "crop"}, {"crop", "classify"}, {"crop", "ocr"}};
  EXPECT_EQ(derived_slo(app, profiles), Duration::milliseconds(20 + 2 + 30));  // through ocr
  app.modules[3].model = "unprofiled";                                         // 100 ms for a model with no default SLO
  EXPECT_EQ(derived_slo(app, profiles), Duration::milliseconds(20 + 2 + 100));
  app.edges.push_back({"ocr", "detect"});  // a cycle: no path to go by
  EXPECT_EQ(derived_slo(app, profiles), Duration::milliseconds(100));
}

// The GUI's piecewise segments: "SECONDS:MULTIPLIER, …", refused with the segment and the reason.
TEST(RateSegmentsText, ParsesFormatsAndRefuses) {
  const auto segments = parse_rate_segments(" 10:1, 20:2.5 ,30:0 ");
  ASSERT_EQ(segments.size(), 3u);
  EXPECT_EQ(segments[1].duration, Duration::seconds(20));
  EXPECT_EQ(segments[1].rate_multiplier, 2.5);
  EXPECT_EQ(segments[2].rate_multiplier, 0.0);
  EXPECT_EQ(parse_rate_segments(format_rate_segments(segments)), segments);
  for (const auto* bad : {"", "10", "10:x", "-1:2", "5:1, 0:1", "5:-1", "5:1e-300"}) {
    try {
      (void)parse_rate_segments(bad);
      ADD_FAILURE() << bad << " was accepted";
    } catch (const QueryError& e) {
      EXPECT_NE(std::string(e.what()).find("segment"), std::string::npos) << e.what();
    }
  }
}

TEST(ScenarioEditing, ARenameCarriesTheWorkloadsThatSendToTheApplication) {
  const auto before = with_one_application();
  const auto after = with_renamed_application(before, "camera", "doorbell");
  EXPECT_EQ(after.applications[0].name, "doorbell");
  const auto& targets = after.workloads[0].targets;
  EXPECT_EQ(targets[0].name, "doorbell");
  EXPECT_EQ(targets[1].name, "camera") << "a model that happens to share the name is not the application";

  EXPECT_THROW((void)with_renamed_application(before, "nowhere", "x"), QueryError);
  EXPECT_THROW((void)with_renamed_application(before, "camera", ""), QueryError);
  auto two = before;
  two.applications.push_back(two.applications.front());
  two.applications.back().name = "doorbell";
  EXPECT_THROW((void)with_renamed_application(two, "camera", "doorbell"), QueryError);
  EXPECT_EQ(with_renamed_application(before, "camera", "camera"), before);
}
