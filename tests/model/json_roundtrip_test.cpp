#include <gtest/gtest.h>

#include "model/core/error.h"
#include "model/io/document.h"
#include "model/io/model_json.h"
#include "resources/builtin_resources.h"
#include "tests/support/test_support.h"

using namespace servescope;

namespace {

// A scenario using every feature of the format, so the round trip covers every field.
Scenario full_scenario() {
  Scenario s;
  s.name = "round trip";
  s.description = "every field";
  GpuSpec custom{"MyGPU", "Lab GPU", "Custom", {"lab"}, 10, 1.5, 3.0, 4.0, 100.0, true};
  s.custom_gpus.push_back(custom);
  s.cluster.name = "c";
  s.cluster.nodes.push_back({"v100", "V100", 2, 2, 6.0, 6.0, std::nullopt});
  s.cluster.nodes.push_back({"lab", "MyGPU", 1, 1, 0.5, 1.25, CanvasPoint{-40.5, 310}});

  ModelProfile blocks;
  blocks.name = "blocky";
  blocks.form = ProfileForm::Blocks;
  blocks.default_slo = Duration::from_us(33278.6);
  blocks.block_count = 2;
  blocks.boundary_bytes = {4096};
  BlockTable t{"V100", GpuShare::mps(2), {}, {}, {}};
  t.blocks.emplace_back(
      std::vector<int>{1, 2, 4},
      std::vector<Duration>{Duration::microseconds(10), Duration::from_us(12.5), Duration::microseconds(20)});
  t.blocks.emplace_back(
      std::vector<int>{1, 2, 4},
      std::vector<Duration>{Duration::microseconds(1), Duration::microseconds(2), Duration::microseconds(3)});
  blocks.block_tables.push_back(t);
  s.profiles.models.push_back(blocks);

  ModelProfile linear;
  linear.name = "lin";
  linear.form = ProfileForm::Linear;
  linear.preprocess = Duration::microseconds(300);
  linear.postprocess = Duration::from_us(1.5);
  linear.linear_fits.push_back(
      {"V100", GpuShare::whole(), Duration::microseconds(268), Duration::microseconds(5172), 64});
  linear.linear_fits.push_back(
      {"MyGPU", GpuShare::mps(3), Duration::microseconds(500), Duration::microseconds(1000), 0});
  s.profiles.models.push_back(linear);

  ModelProfile table;
  table.name = "tab";
  table.form = ProfileForm::Table;
  table.default_slo = Duration::milliseconds(50);
  table.batch_tables.push_back(
      {"V100", GpuShare::percent(40),
       BatchCurve(batch_range(3), {Duration::microseconds(5), Duration::microseconds(6), Duration::microseconds(9)})});
  s.profiles.models.push_back(table);
  s.profiles.utilisation.push_back({"tab", "V100", {{1, 0.1, 0.2, 0.3}, {8, 0.4, 0.5, 0.6}}, ""});
  s.profiles.interference.push_back({"V100", 0.1, 0.7, 0.35, 0.09, 0.9, "fitted", ""});
  s.profiles.contention.push_back({"V100",
                                   {{GpuShare::mps(2), 1, 2, 1.25, 40}, {GpuShare::mps(4), 8, 3, 1.75, 12}},
                                   "profile",
                                   "",
                                   Duration::microseconds(41'500)});

  Application app;
  app.name = "pipeline";
  app.slo = Duration::milliseconds(200);
  app.modules = {{"pre", ModuleKind::Cpu, "", Duration::microseconds(700)},
                 {"a", ModuleKind::Dnn, "lin", Duration()},
                 {"b", ModuleKind::Dnn, "blocky", Duration()}};
  app.edges = {{"pre", "a"}, {"a", "b"}};
  s.applications.push_back(app);

  Workload w1;
  w1.name = "poisson";
  w1.rate_rps = 100;
  w1.targets = {{TargetKind::Model, "blocky", 2.0, std::nullopt},
                {TargetKind::Model, "lin", 1.0, Duration::milliseconds(30)}};
  Workload w2;
  w2.name = "bursty";
  w2.rate_rps = 50.5;
  w2.arrivals = GammaArrivals{0.25};
  w2.popularity = Popularity::Zipf;
  w2.zipf_s = 1.1;
  w2.targets = {{TargetKind::Application, "pipeline", 1.0, std::nullopt},
                {TargetKind::Model, "tab", 1.0, std::nullopt}};
  Workload w3;
  w3.name = "diurnal";
  w3.rate_rps = 10;
  w3.arrivals = PiecewiseArrivals{{{Duration::seconds(10), 0.5}, {Duration::seconds(20), 2.0}}};
  w3.popularity = Popularity::Equal;
  w3.targets = {{TargetKind::Model, "tab", 1.0, std::nullopt}};
  s.workloads = {w1, w2, w3};
  return s;
}

}  // namespace

TEST(JsonRoundTrip, EveryScenarioFieldSurvivesSaveAndLoad) {
  test::TempDir dir;
  const auto s = full_scenario();
  ASSERT_TRUE(check_scenario(s).empty()) << check_scenario(s).front().path << ": " << check_scenario(s).front().message;
  const auto path = (dir.path() / "s.json").string();
  save_scenario(path, s);
  std::vector<std::string> warnings;
  const auto loaded = load_scenario(path, &warnings);
  EXPECT_EQ(loaded, s);
  EXPECT_TRUE(warnings.empty());
  // And the text is stable: saving what was loaded writes the same bytes.
  const auto again = (dir.path() / "again.json").string();
  save_scenario(again, loaded);
  EXPECT_EQ(test::read_file(path), test::read_file(again));
}

TEST(JsonRoundTrip, ProjectWithPlansAndRuns) {
  test::TempDir dir;
  Project p;
  p.name = "proj";
  p.scenario = full_scenario();
  p.plans.push_back(
      {"plan A", "ppipe", "2026-11-22T10:00:00Z", nlohmann::json{{"kind", "pipeline-plan"}, {"throughput", 1213.17}}});
  p.runs.push_back(
      {"run 1", "symphony", "2026-11-22T10:05:00Z", nlohmann::json{{"kind", "run-result"}, {"slo_attainment", 0.99}}});
  const auto path = (dir.path() / "p.json").string();
  save_project(path, p);
  EXPECT_EQ(load_project(path), p);
}

TEST(JsonRoundTrip, IncludedProfilesStayIncluded) {
  test::TempDir dir;
  Scenario s;
  s.name = "with include";
  s.cluster.nodes.push_back({"a", "A100", 8, 1, 100, 100, std::nullopt});
  s.profile_includes = {"profiles/linear.json"};
  ProfileSet inc;
  inc.name = "included";
  ModelProfile m;
  m.name = "m";
  m.form = ProfileForm::Linear;
  m.default_slo = Duration::milliseconds(20);
  m.linear_fits.push_back({"A100", GpuShare::whole(), Duration::microseconds(100), Duration::microseconds(1000), 0});
  inc.models.push_back(m);
  std::filesystem::create_directories(dir.path() / "profiles");
  save_profiles(dir.path() / "profiles/linear.json", inc);
  s.profiles.merge(inc, "profiles/linear.json");
  s.workloads.push_back(
      {"w", 10, PoissonArrivals{}, {{TargetKind::Model, "m", 1.0, std::nullopt}}, Popularity::Explicit, 0.9});
  const auto path = (dir.path() / "scenario.json").string();
  save_scenario(path, s);
  const auto text = test::read_file(path);
  EXPECT_EQ(text.find("alpha_us"), std::string::npos) << "included profiles must not be inlined";
  const auto loaded = load_scenario(path);
  EXPECT_EQ(loaded, s);

  // Saving into another folder rewrites the relative include so it still resolves.
  std::filesystem::create_directories(dir.path() / "elsewhere/deeper");
  auto moved = loaded;
  const auto target = dir.path() / "elsewhere/deeper/s.json";
  rebase_profile_includes(moved, path, target);
  EXPECT_EQ(moved.profile_includes.front(), "../../profiles/linear.json");
  save_scenario(target, moved);
  EXPECT_EQ(load_scenario(target.string()).profiles.get("m").linear_fits, m.linear_fits);

  // An untitled project ("") has no folder of its own: its relative includes are read from the
  // working directory, and saving it rebases them from there instead of throwing.
  auto untitled = loaded;
  untitled.profile_includes.front() = "profiles/linear.json";
  const auto cwd = std::filesystem::current_path();
  std::filesystem::current_path(dir.path());
  EXPECT_NO_THROW(rebase_profile_includes(untitled, "", target));
  std::filesystem::current_path(cwd);
  EXPECT_EQ(untitled.profile_includes.front(), "../../profiles/linear.json");
  auto bare = Scenario{};
  EXPECT_NO_THROW(rebase_profile_includes(bare, "", "plain.json"));
}

TEST(JsonRoundTrip, EveryBuiltinResourceLoadsAndRoundTrips) {
  for (const auto& r : resources::all_builtin_resources()) {
    SCOPED_TRACE(std::string(r.name));
    const auto location = std::string(kBuiltinPrefix) + std::string(r.name);
    const auto doc = load_document(location);
    EXPECT_TRUE(doc.warnings.empty());
    nlohmann::json again;
    switch (doc.kind) {
      case DocumentKind::GpuCatalog:
        again = to_json(std::get<GpuCatalog>(doc.content), "x");
        EXPECT_EQ(parse_document(again.dump(), "x").content.index(), doc.content.index());
        EXPECT_EQ(std::get<GpuCatalog>(parse_document(again.dump(), "x").content), std::get<GpuCatalog>(doc.content));
        break;
      case DocumentKind::Cluster:
        again = to_json(std::get<Cluster>(doc.content), true);
        EXPECT_EQ(std::get<Cluster>(parse_document(again.dump(), "x").content), std::get<Cluster>(doc.content));
        break;
      case DocumentKind::Profiles:
        again = to_json(std::get<ProfileSet>(doc.content));
        EXPECT_EQ(std::get<ProfileSet>(parse_document(again.dump(), "x").content), std::get<ProfileSet>(doc.content));
        break;
      case DocumentKind::Scenario:
      case DocumentKind::Project:
        break;  // covered with includes below
    }
  }
  const auto demo = load_project("builtin:projects/demo.json");
  EXPECT_EQ(demo.scenario.profiles.models.size(), 37u);
  EXPECT_EQ(demo.scenario.cluster.total_gpus(), 64);
  // Built-in files name their includes with "builtin:", so a saved copy still finds them.
  test::TempDir dir;
  save_project(dir.path() / "demo.json", demo);
  EXPECT_EQ(load_project((dir.path() / "demo.json").string()), demo);
}

TEST(GpuCatalog, BuiltinHasThePapersGpus) {
  const auto& c = GpuCatalog::builtin();
  for (const char* id : {"P4", "T4", "L4", "V100", "A100", "H100", "GTX1080Ti", "RTX2080Ti", "TITANX"})
    EXPECT_NE(c.find(id), nullptr) << id;
  EXPECT_EQ(c.canonical_id("2080ti"), "RTX2080Ti");
  EXPECT_EQ(c.canonical_id("TITAN_X_(Pascal)"), "TITANX");
  EXPECT_EQ(c.canonical_id("v100"), "V100");
  EXPECT_THROW((void)c.canonical_id("Voodoo2"), QueryError);
  EXPECT_FALSE(c.find("P4")->mps);
  EXPECT_TRUE(c.find("T4")->mps);
  EXPECT_EQ(c.find("A100")->sm_count, 108);
}

// A custom type that only carries a price (docs/formats.md "GPU catalog") needs no datasheet
// figures. Absent figures are 0 (unknown), absent mps false; what is written back is what the
// file said.
TEST(GpuCatalog, ACustomTypeNeedsOnlyAnId) {
  for (const auto& g : GpuCatalog::builtin().gpus()) {
    SCOPED_TRACE(g.id);  // the built-in entries stay complete
    for (const auto f : {GpuFigure::SmCount, GpuFigure::Fp32Tflops, GpuFigure::Fp16Tflops, GpuFigure::MemoryGib,
                         GpuFigure::MemoryBandwidthGbs})
      EXPECT_TRUE(known(g, f)) << field_name(f);
  }

  test::TempDir dir;
  const auto path = dir.write("rented.json", R"({"schema_version": 1, "kind": "scenario", "name": "rented",
 "gpu_types": [{"id": "Rented", "price_per_hour": 1.5}, {"id": "Half", "name": "Half-known", "sm_count": 20, "mps": true}],
 "cluster": {"name": "c", "nodes": [{"name": "r", "gpu": "Rented", "gpu_count": 2, "nic_up_gbps": 10, "nic_down_gbps": 10}]},
 "profiles": [
   {"name": "det", "form": "table", "default_slo_us": 50000,
    "tables": [{"gpu": "Rented", "batches": [1, 4], "latency_us": [2000, 5000]},
               {"gpu": "Rented", "share": "1/2", "batches": [1, 4], "latency_us": [3000, 8000]}]},
   {"name": "cls", "form": "table", "default_slo_us": 50000,
    "tables": [{"gpu": "Rented", "batches": [1, 4], "latency_us": [1000, 2500]}]}],
 "applications": [{"name": "app", "slo_us": 100000, "modules": [{"id": "a", "model": "det"},
   {"id": "b", "model": "cls"}], "edges": [["a", "b"]]}],
 "workloads": [{"name": "w", "rate_rps": 50, "targets": [{"application": "app"}]}]})");
  std::vector<std::string> warnings;
  const auto s = load_scenario(path, &warnings);
  EXPECT_TRUE(warnings.empty());
  EXPECT_TRUE(check_scenario(s).empty()) << check_scenario(s).front().message;
  const auto catalog = s.catalog();
  const auto* rented = catalog.find("Rented");
  ASSERT_NE(rented, nullptr);
  EXPECT_EQ(rented->name, "Rented");
  EXPECT_EQ(rented->price_per_hour, 1.5);
  EXPECT_EQ(rented->sm_count, 0);
  EXPECT_EQ(rented->fp32_tflops, 0);
  EXPECT_EQ(rented->fp16_tflops, 0);
  EXPECT_EQ(rented->memory_gib, 0);
  EXPECT_EQ(rented->memory_bandwidth_gbs, 0);
  EXPECT_FALSE(rented->mps);
  for (const auto f : {GpuFigure::SmCount, GpuFigure::Fp32Tflops, GpuFigure::Fp16Tflops, GpuFigure::MemoryGib,
                       GpuFigure::MemoryBandwidthGbs})
    EXPECT_FALSE(known(*rented, f)) << field_name(f);
  EXPECT_EQ(catalog.find("Half")->sm_count, 20);
  EXPECT_TRUE(catalog.find("Half")->mps);

  // Written back, each entry says what the file said and nothing more.
  EXPECT_EQ(to_json(*rented), nlohmann::json::parse(R"({"id": "Rented", "price_per_hour": 1.5})"));
  EXPECT_EQ(to_json(*catalog.find("Half")),
            nlohmann::json::parse(R"({"id": "Half", "name": "Half-known", "sm_count": 20, "mps": true})"));
  const auto again = (dir.path() / "again.json").string();
  save_scenario(again, s);
  EXPECT_EQ(load_scenario(again), s);
  EXPECT_EQ(nlohmann::json::parse(test::read_file(again))["gpu_types"],
            nlohmann::json::parse(test::read_file(path))["gpu_types"]);

  // A figure that is present is still checked.
  for (const char* bad : {R"("sm_count": 0)", R"("fp32_tflops": -1)", R"("memory_gib": 0)", R"("mps": 1)"}) {
    const auto text =
        std::string(R"({"schema_version": 1, "kind": "gpu-catalog", "name": "c", "gpus": [{"id": "X", )") + bad + "}]}";
    EXPECT_THROW((void)parse_document(text, "bad.json"), InputError) << bad;
  }
  EXPECT_THROW(
      (void)parse_document(R"({"schema_version": 1, "kind": "gpu-catalog", "name": "c", "gpus": [{}]})", "bad.json"),
      InputError);
}

// A scenario's entry for a built-in id overrides what it states and keeps the rest (a price for
// V100 must not forget V100's figures).
TEST(GpuCatalog, AnEntryForABuiltInTypeKeepsWhatItLeavesOut) {
  test::TempDir dir;
  const auto path = dir.write("priced.json", R"({"schema_version": 1, "kind": "scenario", "name": "priced",
 "gpu_types": [{"id": "V100", "price_per_hour": 2.48}],
 "cluster": {"name": "c", "nodes": [{"name": "v", "gpu": "V100", "gpu_count": 2, "nic_up_gbps": 10, "nic_down_gbps": 10}]}})");
  const auto s = load_scenario(path);
  const auto* builtin = GpuCatalog::builtin().find("V100");
  ASSERT_NE(builtin, nullptr);
  const auto catalog = s.catalog();
  const auto* v100 = catalog.find("V100");
  ASSERT_NE(v100, nullptr);
  EXPECT_EQ(v100->price_per_hour, 2.48);
  EXPECT_EQ(v100->sm_count, builtin->sm_count);
  EXPECT_EQ(v100->fp16_tflops, builtin->fp16_tflops);
  EXPECT_EQ(v100->mps, builtin->mps);
  EXPECT_EQ(v100->name, builtin->name);
  const auto again = (dir.path() / "again.json").string();
  save_scenario(again, s);
  EXPECT_EQ(load_scenario(again), s);
}

// What needs an unknown figure says which type lacks which field and where to add it.
TEST(GpuCatalog, RequiredFiguresNameTheTypeAndTheField) {
  GpuSpec g;
  g.id = "Rented";
  g.sm_count = 20;
  EXPECT_NO_THROW(require_figures(g, {GpuFigure::SmCount}, "x"));
  try {
    require_figures(g, {GpuFigure::SmCount, GpuFigure::Fp32Tflops, GpuFigure::MemoryBandwidthGbs}, "the estimator");
    FAIL() << "no error";
  } catch (const QueryError& e) {
    EXPECT_EQ(std::string(e.what()),
              "GPU type 'Rented' has no fp32_tflops and memory_bandwidth_gbs, which the estimator needs: add them to "
              "the scenario's gpu_types entry for 'Rented'");
  }
  try {
    require_figures(g, {GpuFigure::MemoryGib}, "the memory check");
    FAIL() << "no error";
  } catch (const QueryError& e) {
    EXPECT_EQ(std::string(e.what()),
              "GPU type 'Rented' has no memory_gib, which the memory check needs: add it to the scenario's gpu_types "
              "entry for 'Rented'");
  }
}

TEST(Cluster, ExpandsNodeEntriesIntoServers) {
  const auto doc = load_document("builtin:clusters/hc2-l.json");
  const auto& c = std::get<Cluster>(doc.content);
  EXPECT_EQ(c.gpus_by_type().at("L4"), 25);
  EXPECT_EQ(c.gpus_by_type().at("T4"), 75);
  const auto servers = c.servers();
  EXPECT_EQ(static_cast<int>(servers.size()), c.total_servers());
  EXPECT_EQ(servers.front().name, "l4-0");
  EXPECT_EQ(servers.front().gpu_count, 4);
  int gpus = 0;
  for (const auto& s : servers)
    gpus += s.gpu_count;
  EXPECT_EQ(gpus, 100);
}
