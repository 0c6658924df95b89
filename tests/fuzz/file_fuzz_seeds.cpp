// file_fuzz's seeds: every built-in resource, every file of tests/corpus/bad_inputs, the plans, runs,
// timelines and sweep that servescope-cli writes at start-up (wall-clock figures zeroed, so that a
// seed gives the same mutants on every run), a project holding plans and runs, and the importers'
// fixtures.
#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

#include "resources/builtin_resources.h"
#include "tests/fuzz/file_fuzz_support.h"
#include "tests/model/csv_fixtures.h"
#include "tests/support/glet_fixture.h"
#include "tests/support/pipeline_fixture.h"

namespace fs = std::filesystem;
using namespace servescope;

namespace file_fuzz {
namespace {

std::string read_whole(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

// Wall-clock figures differ from run to run; zeroed, the seeds (and so the mutants) are the same.
void scrub(nlohmann::json& j) {
  if (j.is_object()) {
    for (auto& [key, value] : j.items()) {
      if (key.find("wall") != std::string::npos || key == "seconds" || key == "created_utc")
        value = value.is_string() ? nlohmann::json("") : nlohmann::json(0);
      else
        scrub(value);
    }
  } else if (j.is_array()) {
    for (auto& v : j)
      scrub(v);
  }
}

std::string shell_quote(const std::string& s) {
  std::string q = "'";
  for (char c : s)
    q += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return q + "'";
}

// Plans, runs, timelines and a sweep as servescope-cli writes them (in `dir`); a command that
// fails is reported and its seeds left out.
std::vector<Seed> generated_seeds(const fs::path& dir) {
  const std::string cli = shell_quote(SERVESCOPE_CLI);
  auto path = [&](const std::string& name) { return shell_quote((dir / name).string()); };
  {
    std::ofstream(dir / "glet-scenario.json") << test::glet_scenario_json(1200);
    std::ofstream(dir / "pipeline-scenario.json") << test::kPipelineScenarioJson;
  }
  const std::string ppipe = "builtin:projects/ppipe-demo.json";
  const std::vector<std::string> commands = {
      "plan -s " + ppipe + " -o " + path("ppipe-plan.json"),
      "plan -s " + ppipe + " --system dart-r -o " + path("dart-plan.json"),
      "simulate -s " + ppipe + " --plan " + path("ppipe-plan.json") + " -d 0.01 --warmup 0 -o " +
          path("pipeline-run.json") + " --timeline " + path("pipeline-timeline.json"),
      "simulate -s builtin:projects/demo.json -w mixed-37 --rate 2000 -d 0.02 --warmup 0 -o " +
          path("symphony-run.json") + " --timeline " + path("symphony-timeline.json"),
      "simulate -s " + ppipe + " --plan " + path("ppipe-plan.json") + " -d 0.01 --warmup 0 --timeline " +
          path("packed-timeline.json") + " --packed-timeline",
      "plan -s " + path("glet-scenario.json") + " --system glet -o " + path("glet-plan.json"),
      "simulate -s " + path("glet-scenario.json") + " --plan " + path("glet-plan.json") + " -d 0.05 --warmup 0 -o " +
          path("glet-run.json") + " --timeline " + path("glet-timeline.json"),
      "sweep -s " + ppipe + " --plan " + path("ppipe-plan.json") + " -d 0.05 --from 0.5 --to 1 --step 0.5 -o " +
          path("sweep.json"),
      "plan -s builtin:projects/cost-demo.json --system harpagon --no-verify -o " + path("cost-plan.json"),
  };
  for (const auto& c : commands) {
    const auto line = cli + " " + c + " >/dev/null 2>&1 </dev/null";
    if (std::system(line.c_str()) != 0) std::cerr << "file_fuzz: warning: seed command failed: " << c << "\n";
  }
  std::vector<Seed> seeds;
  auto add = [&](const std::string& name, const nlohmann::json& j) {
    seeds.push_back({name, Family::Json, j.dump(1)});
  };
  std::map<std::string, nlohmann::json> made;
  for (const auto* name : {"ppipe-plan.json", "dart-plan.json", "pipeline-run.json", "pipeline-timeline.json",
                           "symphony-run.json", "symphony-timeline.json", "packed-timeline.json", "glet-plan.json",
                           "glet-run.json", "glet-timeline.json", "sweep.json", "cost-plan.json"}) {
    if (!fs::exists(dir / name)) continue;
    auto j = nlohmann::json::parse(read_whole(dir / name), nullptr, false);
    if (j.is_discarded()) continue;
    scrub(j);
    made[name] = j;
    add(std::string("generated:") + name, j);
  }
  seeds.push_back({"generated:glet-scenario.json", Family::Json, test::glet_scenario_json(1200)});
  seeds.push_back({"generated:pipeline-scenario.json", Family::Json, test::kPipelineScenarioJson});
  // A project holding plans and runs, as the GUI saves it.
  if (auto demo = resources::find_builtin_resource("projects/ppipe-demo.json")) {
    auto project = nlohmann::json::parse(*demo);
    project["plans"] = nlohmann::json::array();
    project["runs"] = nlohmann::json::array();
    for (const auto* name : {"ppipe-plan.json", "glet-plan.json", "cost-plan.json"})
      if (made.contains(name))
        project["plans"].push_back({{"name", name}, {"system", "x"}, {"created_utc", ""}, {"body", made[name]}});
    for (const auto* name : {"pipeline-run.json", "glet-run.json"})
      if (made.contains(name))
        project["runs"].push_back({{"name", name}, {"system", "x"}, {"created_utc", ""}, {"body", made[name]}});
    add("generated:project-with-artifacts.json", project);
  }
  return seeds;
}

}  // namespace

std::vector<Seed> all_seeds(const fs::path& work) {
  std::vector<Seed> seeds;
  for (const auto& r : resources::all_builtin_resources())
    seeds.push_back({"builtin:" + std::string(r.name), Family::Json, std::string(r.contents)});
  std::vector<fs::path> corpus;
  for (const auto& e : fs::directory_iterator(SERVESCOPE_CORPUS_DIR))
    if (e.is_regular_file() && e.path().extension() != ".md") corpus.push_back(e.path());
  std::ranges::sort(corpus);
  for (const auto& p : corpus)
    seeds.push_back({"corpus:" + p.filename().string(), Family::Json, read_whole(p)});
  for (auto& s : generated_seeds(work))
    seeds.push_back(std::move(s));
  const std::vector<std::pair<const char*, const char*>> texts = {
      {"alphabeta.csv", test::kAlphaBeta},
      {"nexus.txt", test::kNexusProfile},
      {"glet-util.csv", test::kGletUtil},
      {"glet-interference.csv", test::kGletInterference},
      {"partition-latency.csv", test::kPartitionLatency},
      {"trace.txt", "# seconds\n0.0\n0.001\n0.0015\n\n0.004\n1.25\n"},
  };
  for (const auto& [name, text] : texts)
    seeds.push_back({std::string("fixture:") + name, Family::Text, text});
  return seeds;
}

}  // namespace file_fuzz
