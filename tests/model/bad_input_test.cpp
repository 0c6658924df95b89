// Every loader fed truncated, wrong-typed, negative, NaN, huge and non-UTF-8 input: each must
// either accept the input or throw InputError naming the file and the place. Nothing may crash
// or throw anything else.
#include <functional>
#include <gtest/gtest.h>

#include "model/core/error.h"
#include "model/import/alphabeta_import.h"
#include "model/import/glet_import.h"
#include "model/import/nexus_import.h"
#include "model/io/document.h"
#include "model/io/trace_file.h"
#include "resources/builtin_resources.h"
#include "tests/model/csv_fixtures.h"

using namespace servescope;

namespace {

enum class Outcome { Accepted, Rejected };

// Runs a loader; fails the test on anything but success or a located InputError.
Outcome run_loader(const std::function<void()>& load, const std::string& what) {
  try {
    load();
    return Outcome::Accepted;
  } catch (const InputError& e) {
    EXPECT_FALSE(e.reason().empty()) << what;
    EXPECT_FALSE(e.file().empty()) << what;
    return Outcome::Rejected;
  } catch (const std::exception& e) {
    ADD_FAILURE() << what << ": threw a non-InputError: " << e.what();
  } catch (...) {
    ADD_FAILURE() << what << ": threw a non-exception";
  }
  return Outcome::Rejected;
}

std::string demo_text() {
  return std::string(*resources::find_builtin_resource("projects/demo.json"));
}

std::string small_scenario() {
  return R"({
  "schema_version": 1, "kind": "scenario", "name": "s",
  "cluster": {"name": "c", "nodes": [{"name": "n", "gpu": "V100", "gpu_count": 4, "nic_up_gbps": 10, "nic_down_gbps": 10}]},
  "profiles": [
    {"name": "lin", "form": "linear", "default_slo_us": 20000, "fits": [{"gpu": "V100", "alpha_us": 100, "beta_us": 1000}]},
    {"name": "blk", "form": "blocks", "blocks": 2, "boundary_bytes": [1024],
     "tables": [{"gpu": "V100", "share": "1/2", "latency_us": [[10, 20], [30, 40]]}]},
    {"name": "tab", "form": "table", "default_slo_us": 5000,
     "tables": [{"gpu": "V100", "share": "40%", "batches": [1, 4], "latency_us": [100, 200]}]}],
  "applications": [{"name": "app", "slo_us": 50000,
    "modules": [{"id": "a", "model": "lin"}, {"id": "c", "kind": "cpu", "latency_us": 10}], "edges": [["a", "c"]]}],
  "workloads": [{"name": "w", "rate_rps": 100, "arrival": {"process": "gamma", "shape": 2},
    "targets": [{"model": "lin"}, {"application": "app", "weight": 2}]}]
})";
}

// Replaces every occurrence-free position: all JSON scalars get swapped for hostile values.
void mutate_each_scalar(const nlohmann::json& root,
                        const std::function<void(const nlohmann::json&, const std::string&)>& visit) {
  const std::vector<nlohmann::json> hostile = {
      -1, -1e300, 1e300, "x", nullptr, true, nlohmann::json::array(), nlohmann::json::object(), 0, 2147483648LL};
  std::function<void(nlohmann::json&, nlohmann::json&, const std::string&)> walk;
  nlohmann::json copy = root;
  walk = [&](nlohmann::json& doc, nlohmann::json& node, const std::string& path) {
    if (node.is_object()) {
      for (auto& [k, v] : node.items())
        walk(doc, v, path + "." + k);
    } else if (node.is_array()) {
      for (std::size_t i = 0; i < node.size(); ++i)
        walk(doc, node[i], path + "[" + std::to_string(i) + "]");
    } else {
      const auto saved = node;
      for (const auto& h : hostile) {
        node = h;
        visit(doc, path + " = " + h.dump());
      }
      node = saved;
    }
  };
  walk(copy, copy, "$");
}

}  // namespace

TEST(BadInput, TruncatedJsonIsRejectedWithAPosition) {
  for (const auto& text : {demo_text(), small_scenario()}) {
    for (std::size_t cut = 0; cut + 2 < text.size(); cut += std::max<std::size_t>(1, text.size() / 97)) {
      const auto prefix = text.substr(0, cut);
      EXPECT_EQ(run_loader([&] { parse_document(prefix, "cut.json"); }, "cut at " + std::to_string(cut)),
                Outcome::Rejected);
    }
  }
  try {
    parse_document("{\"schema_version\": 1,\n \"kind\": \"cluster\",\n \"nodes\": [", "t.json");
    FAIL();
  } catch (const InputError& e) {
    EXPECT_EQ(e.where(), "line 3, column 11");  // the last character before the input ends
  }
}

TEST(BadInput, EveryScalarReplacedByHostileValues) {
  int rejected = 0, accepted = 0;
  for (const auto& text : {small_scenario(), demo_text()}) {
    const auto root = nlohmann::json::parse(text);
    mutate_each_scalar(root, [&](const nlohmann::json& doc, const std::string& what) {
      (run_loader([&] { parse_document(doc.dump(), "m.json"); }, what) == Outcome::Rejected ? rejected : accepted)++;
    });
  }
  // Most hostile values must be refused; a few are legitimately fine (e.g. 0 as a weight).
  EXPECT_GT(rejected, 10 * accepted);
}

TEST(BadInput, MessagesNameThePathAndTheReason) {
  auto expect_error = [](const std::string& text, const std::string& where, const std::string& reason_part) {
    try {
      parse_document(text, "f.json");
      ADD_FAILURE() << "accepted; expected an error at " << where;
    } catch (const InputError& e) {
      EXPECT_EQ(e.file(), "f.json");
      EXPECT_EQ(e.where(), where) << e.what();
      EXPECT_NE(e.reason().find(reason_part), std::string::npos) << e.what();
    }
  };
  const auto base = nlohmann::json::parse(small_scenario());
  auto with = [&](const std::function<void(nlohmann::json&)>& edit) {
    auto j = base;
    edit(j);
    return j.dump();
  };
  expect_error(with([](auto& j) { j["cluster"]["nodes"][0]["gpu_count"] = -3; }), "$.cluster.nodes[0].gpu_count",
               "expected an integer from 1 to 64, got -3");
  expect_error(with([](auto& j) { j["cluster"]["nodes"][0]["gpu_count"] = 1e12; }), "$.cluster.nodes[0].gpu_count",
               "expected an integer");
  expect_error(with([](auto& j) { j["cluster"]["nodes"][0]["gpu"] = "Voodoo2"; }), "$.cluster.nodes[0].gpu",
               "unknown GPU type 'Voodoo2'");
  expect_error(with([](auto& j) {
                 j["cluster"]["nodes"][0]["position"] = {1, 2, 3};
               }),
               "$.cluster.nodes[0].position", "must be [x, y]");
  expect_error(with([](auto& j) {
                 j["cluster"]["nodes"][0]["position"] = {1, "left"};
               }),
               "$.cluster.nodes[0].position[1]", "expected a number");
  expect_error(with([](auto& j) { j["profiles"][0]["fits"][0]["alpha_us"] = "fast"; }),
               "$.profiles[0].fits[0].alpha_us", "expected a number");
  expect_error(with([](auto& j) { j["profiles"][0]["fits"][0]["beta_us"] = -5; }), "$.profiles[0].fits[0].beta_us",
               "got -5");
  expect_error(with([](auto& j) { j["profiles"][1]["tables"][0]["latency_us"][1] = {30}; }),
               "$.profiles[1].tables[0].latency_us[1]", "expected 2 latencies");
  expect_error(with([](auto& j) { j["profiles"][1]["tables"][0]["share"] = "3/2"; }), "$.profiles[1].tables[0].share",
               "expected a GPU share");
  expect_error(with([](auto& j) { j["profiles"][0]["speed"] = 1; }), "$.profiles[0].speed", "unknown member");
  expect_error(with([](auto& j) { j["workloads"][0]["targets"][0]["model"] = "nope"; }),
               "$.workloads[0].targets[0].name", "no model profile named 'nope'");
  expect_error(with([](auto& j) {
                 j["applications"][0]["edges"].push_back({"c", "a"});
               }),
               "$.applications[0].edges", "cycle");
  expect_error(with([](auto& j) { j["applications"][0]["modules"][0]["model"] = "ghost"; }),
               "$.applications[0].modules[0].model", "no profile for model 'ghost'");
  expect_error(with([](auto& j) { j["workloads"][0]["rate_rps"] = 0; }), "$.workloads[0].rate_rps",
               "expected a number");
  expect_error(with([](auto& j) { j["schema_version"] = 2; }), "$.schema_version", "unsupported schema_version 2");
  expect_error(with([](auto& j) { j["kind"] = "spreadsheet"; }), "$.kind", "unknown kind");
  expect_error(with([](auto& j) { j["profiles"].push_back(j["profiles"][0]); }), "$.profiles[3].name",
               "duplicate model 'lin'");
  expect_error(with([](auto& j) { j["profile_includes"] = {"missing.json"}; }), "$.profile_includes[0]",
               "cannot include 'missing.json'");
  expect_error(with([](auto& j) {
                 j["workloads"][0]["arrival"] = {{"process", "trace"}, {"path", "nope.txt"}};
               }),
               "$.workloads[0].arrival.path", "cannot use trace 'nope.txt'");
}

TEST(BadInput, NanInfinityAndHugeNumbersInJsonText) {
  for (const char* number : {"NaN", "nan", "Infinity", "-Infinity", "1e400", "0x10"}) {
    auto text = small_scenario();
    text.replace(text.find("\"rate_rps\": 100"), 15, std::string("\"rate_rps\": ") + number);
    EXPECT_EQ(run_loader([&] { parse_document(text, "n.json"); }, number), Outcome::Rejected) << number;
  }
}

TEST(BadInput, NonUtf8IsRejected) {
  auto text = small_scenario();
  text.replace(text.find("\"name\": \"s\""), 11, "\"name\": \"s\xff\xfe\"");
  EXPECT_EQ(run_loader([&] { parse_document(text, "u.json"); }, "json"), Outcome::Rejected);
  std::string csv = test::kAlphaBeta;
  csv.replace(csv.find("ResNet50"), 8, "Res\xc3\x28Net");
  try {
    parse_alphabeta_csv(csv, "ab.csv", GpuCatalog::builtin());
    FAIL();
  } catch (const InputError& e) {
    EXPECT_EQ(e.where(), "line 2");
    EXPECT_NE(e.reason().find("UTF-8"), std::string::npos);
  }
}

TEST(BadInput, CsvLoadersSurviveHostileCells) {
  const std::vector<std::pair<std::string, std::function<void(const std::string&)>>> loaders = {
      {test::kAlphaBeta, [](const std::string& t) { parse_alphabeta_csv(t, "ab.csv", GpuCatalog::builtin()); }},
      {test::kNexusProfile, [](const std::string& t) { parse_nexus_profile(t, "n.txt", GpuCatalog::builtin()); }},
      {test::kGletUtil, [](const std::string& t) { parse_glet_utilisation(t, "UTIL.CSV", "RTX2080Ti"); }},
      {test::kGletInterference, [](const std::string& t) { parse_glet_interference(t, "INT.CSV", "RTX2080Ti"); }},
      {test::kPartitionLatency, [](const std::string& t) { parse_partition_latency_csv(t, "inf.csv", "RTX2080Ti"); }},
      {"1.0\n2.5\n3\n", [](const std::string& t) { parse_trace(t, "trace.txt"); }},
  };
  const std::vector<std::string> hostile = {"-5", "nan", "inf", "1e999", "abc", "", "\xff", "99999999999999999999",
                                            "0"};
  int rejected = 0;
  for (const auto& [fixture, load] : loaders) {
    // Each well-formed fixture is accepted as is.
    EXPECT_EQ(run_loader([&] { load(fixture); }, fixture), Outcome::Accepted) << fixture;
    // Truncated anywhere.
    for (std::size_t cut = 0; cut < fixture.size(); cut += 7)
      run_loader([&] { load(fixture.substr(0, cut)); }, "truncated");
    // Each cell replaced by each hostile value.
    for (std::size_t start = 0; start < fixture.size();) {
      std::size_t end = fixture.find_first_of(",\n", start);
      if (end == std::string::npos) end = fixture.size();
      for (const auto& h : hostile) {
        auto text = fixture;
        text.replace(start, end - start, h);
        if (run_loader([&] { load(text); }, text) == Outcome::Rejected) ++rejected;
      }
      start = end + 1;
    }
  }
  EXPECT_GT(rejected, 100);
}

TEST(BadInput, CsvErrorsNameLineAndColumn) {
  std::string csv = test::kAlphaBeta;
  csv.replace(csv.find("5.172"), 5, "nan");
  try {
    parse_alphabeta_csv(csv, "ab.csv", GpuCatalog::builtin());
    FAIL();
  } catch (const InputError& e) {
    EXPECT_EQ(e.where(), "line 3, column 4");
    EXPECT_NE(e.reason().find("expected a number, got 'nan'"), std::string::npos) << e.what();
  }
}

TEST(BadInput, MissingAndOversizedFiles) {
  EXPECT_THROW(load_document("/nonexistent/x.json"), InputError);
  EXPECT_THROW(load_document("/tmp"), InputError);
  EXPECT_THROW(load_document("builtin:nope.json"), InputError);
}
