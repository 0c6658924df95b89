// Timelines: a pipeline run's spans link the stages of one batch across vGPUs, each model's queue
// drains to zero, the file round-trips, bad files say where (an InputError with the JSON path,
// never a library exception) while older, sparser files still load, the index's window and hit
// queries agree with a brute-force scan, and the Chrome trace is valid trace-event JSON.
#include <functional>
#include <gtest/gtest.h>
#include <limits>
#include <random>
#include <set>
#include <sstream>

#include "engine/glet/glet_plan_json.h"
#include "engine/ppipe/ppipe_planner.h"
#include "engine/ppipe/scenario_planning.h"
#include "engine/systems/glet/glet_options.h"
#include "engine/systems/ppipe/ppipe_options.h"
#include "engine/systems/scenario_planner.h"
#include "engine/systems/scenario_simulation.h"
#include "engine/timeline/chrome_trace.h"
#include "engine/timeline/timeline_data.h"
#include "engine/timeline/timeline_index.h"
#include "model/core/error.h"
#include "model/io/document.h"
#include "tests/support/glet_fixture.h"
#include "tests/support/pipeline_fixture.h"
#include "tests/support/pipeline_run.h"
#include "tests/support/small_timeline.h"
#include "tests/support/test_support.h"
#include "tests/support/trace_event_check.h"

namespace servescope::engine {
namespace {

// The demo's mixed workload on Nexus, with its timeline: it drops requests at the demo's rate.
SimulationResult nexus_demo_run(Duration duration, Duration warmup) {
  const auto project = load_project("builtin:projects/demo.json");
  SimulationSpec spec;
  spec.system = "nexus";
  spec.workloads = {"mixed-37"};
  spec.duration = duration;
  spec.warmup = warmup;
  spec.timeline = true;
  return simulate(project.scenario, spec);
}

TimelineData pipeline_run_timeline() {
  return test::simulate_pipeline_timeline(0.9, Duration::seconds(5));
}

TEST(Timeline, PipelineStagesLinkAndQueuesDrain) {
  const auto t = pipeline_run_timeline();
  ASSERT_GT(t.spans.size(), 100u);
  ASSERT_FALSE(t.queue.empty());
  const TimelineIndex index(t);
  EXPECT_EQ(index.rows(), t.gpus.size());
  // Rows are grouped by physical GPU.
  for (std::size_t r = 1; r < index.rows(); ++r)
    EXPECT_LE(t.gpu_physical[index.slot(r - 1)], t.gpu_physical[index.slot(r)]);
  // A multi-stage batch: its stages run on different slots, one after the other.
  bool found = false;
  for (std::uint32_t i = 0; i < t.spans.size() && !found; ++i) {
    const auto group = index.linked(i);
    if (group.size() < 2) continue;
    found = true;
    for (std::size_t k = 1; k < group.size(); ++k) {
      EXPECT_EQ(t.spans[group[k]].first_request, t.spans[i].first_request);
      EXPECT_GE(t.spans[group[k]].start, t.spans[group[k - 1]].end) << "stage " << k;
      EXPECT_NE(t.spans[group[k]].gpu, t.spans[group[k - 1]].gpu);
    }
  }
  EXPECT_TRUE(found) << "no batch ran in two stages";
  // Every request that arrived was batched or dropped: each model's last queue sample is 0.
  std::map<std::uint32_t, std::uint32_t> last;
  for (const auto& q : t.queue)
    last[q.model] = q.depth;
  for (const auto& [model, depth] : last)
    EXPECT_EQ(depth, 0u) << t.models[model];
  // Every batch lists its requests: as many as its size, late ones as counted.
  ASSERT_EQ(t.requests.size(), t.request_count());
  for (std::size_t i = 0; i < t.spans.size(); ++i) {
    const auto requests = t.requests_of(i);
    ASSERT_EQ(requests.size(), t.spans[i].size);
    std::uint32_t late = 0;
    for (const auto& r : requests) {
      EXPECT_LE(r.arrival, t.spans[i].start);
      late += r.deadline < t.spans[i].end ? 1u : 0u;
    }
    EXPECT_EQ(late, t.spans[i].late);
  }
  // Some queueing happened at 90 % load.
  EXPECT_TRUE(std::ranges::any_of(t.queue, [](const QueueSample& q) { return q.depth > 0; }));
}

// Nexus drops a sixth of the demo's requests at its rate: each drop is kept with its model and
// reason, survives the file, and a bad reason in a file is named.
TEST(Timeline, DropsAreKeptWithTheirReason) {
  const auto result = nexus_demo_run(Duration::seconds(2), Duration::milliseconds(200));
  const auto t = timeline_of(result);
  ASSERT_FALSE(t.drops.empty());
  EXPECT_TRUE(std::ranges::is_sorted(t.drops, {}, &DropMark::time));
  EXPECT_TRUE(std::ranges::all_of(t.drops, [&](const DropMark& d) { return d.model < t.models.size(); }));
  auto j = to_json(t);
  const auto back = timeline_from_json(nlohmann::json::parse(j.dump()), "t.json");
  ASSERT_EQ(back.drops.size(), t.drops.size());
  EXPECT_EQ(back.drops.back().reason, t.drops.back().reason);
  EXPECT_EQ(back.drops.back().time, t.drops.back().time);
  // Each drop names its request, and keeps it through the file; older files without the column,
  // or with null in it, still open.
  EXPECT_TRUE(std::ranges::all_of(t.drops, [](const DropMark& d) { return d.request.has_value(); }));
  EXPECT_EQ(back.drops.back().request, t.drops.back().request);
  {
    auto older = j;
    older["drop_columns"] = {"time_us", "model", "reason"};
    for (auto& row : older["drops"])
      row.erase(row.begin() + 3, row.end());
    EXPECT_FALSE(timeline_from_json(older, "old.json").drops.front().request.has_value());
    auto unknown = j;
    unknown["drops"][0][3] = nullptr;
    EXPECT_FALSE(timeline_from_json(unknown, "t.json").drops.front().request.has_value());
  }
  j["drops"][0][2] = "bored";
  try {
    (void)timeline_from_json(j, "t.json");
    ADD_FAILURE() << "accepted";
  } catch (const InputError& e) {
    EXPECT_EQ(e.where(), "$.drops[0][2]");
  }
}

// Notices keep their time, kind, text and slots through both encodings; a file naming a slot the
// timeline lacks or an unknown kind is refused where it says so; older files have none.
TEST(Timeline, NoticesRoundTripAndBadOnesSayWhere) {
  auto result = nexus_demo_run(Duration::milliseconds(500), Duration::milliseconds(100));
  result.notices = {{Duration::milliseconds(120), NoticeKind::WorkerLost, "worker of a lost (closed)", {0, 1}},
                    {Duration::seconds(3), NoticeKind::PlanSwitched, "switched to nexus", {}}};
  const auto t = timeline_of(result);
  EXPECT_EQ(t.end, Duration::seconds(3));  // a notice past the last batch is still on the axis
  for (const auto encoding : {TimelineEncoding::Rows, TimelineEncoding::Packed}) {
    const auto back = timeline_from_json(nlohmann::json::parse(to_json(t, encoding).dump()), "t.json");
    ASSERT_EQ(back.notices.size(), 2u);
    EXPECT_EQ(back.notices[0].time, Duration::milliseconds(120));
    EXPECT_EQ(back.notices[0].kind, NoticeKind::WorkerLost);
    EXPECT_EQ(back.notices[0].text, "worker of a lost (closed)");
    EXPECT_EQ(back.notices[0].gpus, (std::vector<std::uint32_t>{0, 1}));
    EXPECT_TRUE(back.notices[1].gpus.empty());
    EXPECT_EQ(back.end, Duration::seconds(3));
  }
  const auto fails_at = [](nlohmann::json j) {
    try {
      (void)timeline_from_json(j, "t.json");
    } catch (const InputError& e) {
      return e.where();
    }
    return std::string("accepted");
  };
  auto j = to_json(t);
  j["notices"][0]["gpus"][1] = 999;
  EXPECT_EQ(fails_at(j), "$.notices[0].gpus[1]");
  j = to_json(t);
  j["notices"][1]["kind"] = "bored";
  EXPECT_EQ(fails_at(j), "$.notices[1].kind");
  j = to_json(t);
  j.erase("notices");
  EXPECT_TRUE(timeline_from_json(j, "t.json").notices.empty());
}

// Symphony's batches carry the window they could start in, and start inside it; glet slots carry
// their duty cycle. Both survive the file.
TEST(Timeline, SchedulableWindowsAndDutyCycles) {
  const auto project = load_project("builtin:projects/demo.json");
  SimulationSpec spec;
  spec.workloads = {"mixed-37"};
  spec.duration = Duration::seconds(2);
  spec.warmup = Duration::milliseconds(200);
  spec.timeline = true;
  const auto t = timeline_of(simulate(project.scenario, spec));
  std::size_t with_window = 0, inside = 0;
  for (const auto& s : t.spans) {
    if (s.window_close <= s.window_open) continue;
    ++with_window;
    inside += s.start >= s.window_open && s.start <= s.window_close ? 1u : 0u;
  }
  EXPECT_EQ(with_window, t.spans.size());  // every Symphony batch has one
  EXPECT_GE(static_cast<double>(inside), 0.99 * static_cast<double>(with_window));
  const auto back = timeline_from_json(nlohmann::json::parse(to_json(t).dump()), "t.json");
  for (std::size_t i = 0; i < t.spans.size(); i += 97) {
    EXPECT_EQ(back.spans[i].window_open, t.spans[i].window_open);
    EXPECT_EQ(back.spans[i].window_close, t.spans[i].window_close);
  }
  // A pipeline run has no windows, and writes no window columns.
  const auto pipeline = to_json(pipeline_run_timeline());
  EXPECT_EQ(std::ranges::count(pipeline["columns"], "window_open_us"), 0);

  // gpu-let: each glet slot runs on its planned duty cycle.
  const auto glet_scenario = std::get<Scenario>(parse_document(test::glet_scenario_json(1200), "g.json").content);
  ScenarioPlanRequest request;
  request.system = "glet";
  const auto plan = glet_plan_from_json(plan_scenario(glet_scenario, request).plan, "plan");
  SimulationSpec glet_spec;
  glet_spec.system = "glet";
  glet_spec.edit_options<GletRunOptions>().plan = std::make_shared<const GletPlan>(plan);
  glet_spec.duration = Duration::seconds(2);
  glet_spec.warmup = Duration::milliseconds(200);
  glet_spec.timeline = true;
  const auto g = timeline_of(simulate(glet_scenario, glet_spec));
  ASSERT_EQ(g.gpu_duty_cycle.size(), g.gpus.size());
  EXPECT_TRUE(std::ranges::all_of(g.gpu_duty_cycle, [](Duration d) { return d > Duration(); }));
  const auto g_back = timeline_from_json(nlohmann::json::parse(to_json(g).dump()), "g.json");
  EXPECT_EQ(g_back.gpu_duty_cycle, g.gpu_duty_cycle);
}

TEST(Timeline, FileRoundTripsAndBadFilesSayWhere) {
  const auto t = pipeline_run_timeline();
  const auto back = timeline_from_json(nlohmann::json::parse(to_json(t).dump()), "t.json");
  EXPECT_EQ(back.gpus, t.gpus);
  EXPECT_EQ(back.gpu_physical, t.gpu_physical);
  EXPECT_EQ(back.physical_names, t.physical_names);
  EXPECT_EQ(back.models, t.models);
  ASSERT_EQ(back.spans.size(), t.spans.size());
  for (std::size_t i = 0; i < t.spans.size(); ++i) {
    EXPECT_EQ(back.spans[i].start, t.spans[i].start);
    EXPECT_EQ(back.spans[i].end, t.spans[i].end);
    EXPECT_EQ(back.spans[i].gpu, t.spans[i].gpu);
    EXPECT_EQ(back.spans[i].late, t.spans[i].late);
    EXPECT_EQ(back.spans[i].first_request, t.spans[i].first_request);
  }
  EXPECT_EQ(back.transfers.size(), t.transfers.size());
  for (std::size_t i = 0; i < t.spans.size(); i += 13) {
    const auto a = t.requests_of(i), b = back.requests_of(i);
    ASSERT_EQ(a.size(), b.size());
    for (std::size_t k = 0; k < a.size(); ++k) {
      EXPECT_EQ(a[k].id, b[k].id);
      EXPECT_EQ(a[k].deadline, b[k].deadline);
    }
  }
  EXPECT_EQ(back.queue.size(), t.queue.size());
  EXPECT_EQ(back.end, t.end);

  const auto expect_error = [](const nlohmann::json& j, const std::string& where, const std::string& why) {
    try {
      (void)timeline_from_json(j, "bad.json");
      ADD_FAILURE() << "accepted; expected an error at " << where;
    } catch (const InputError& e) {
      EXPECT_EQ(e.where(), where) << e.what();
      EXPECT_NE(e.reason().find(why), std::string::npos) << e.what();
    }
  };
  auto j = to_json(t);
  j["spans"][3][0] = 999;
  expect_error(j, "$.spans[3][0]", "expected a number from 0 to");
  j = to_json(t);
  j["spans"][5] = {1, 2};
  expect_error(j, "$.spans[5]", "expected a row of 9 values");
  j = to_json(t);
  j["spans"][7][5] = -1.0;
  expect_error(j, "$.spans[7][5]", "cannot end before it starts");
  j = to_json(t);
  j["columns"] = {"gpu", "model"};
  expect_error(j, "$.columns", "lacks the column \"start_us\"");
  expect_error(nlohmann::json{{"kind", "project"}}, "$.kind", "expected \"timeline\"");
}

void expect_input_error(const std::function<void()>& read, const std::string& file, const std::string& where,
                        const std::string& why) {
  try {
    read();
    ADD_FAILURE() << "accepted; expected an error at " << where;
  } catch (const InputError& e) {
    EXPECT_EQ(e.file(), file);
    EXPECT_EQ(e.where(), where) << e.what();
    EXPECT_NE(e.reason().find(why), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find(file + ": " + where + ": "), std::string::npos) << e.what();
  } catch (const std::exception& e) {
    ADD_FAILURE() << "not an InputError: " << e.what();
  }
}

TEST(Timeline, MalformedFilesSayWhere) {
  const auto good = to_json(test::small_timeline());
  const auto back = timeline_from_json(good, "t.json");
  EXPECT_EQ(back.gpu_physical, test::small_timeline().gpu_physical);
  EXPECT_EQ(back.gpu_server, test::small_timeline().gpu_server);
  EXPECT_EQ(back.gpu_duty_cycle, test::small_timeline().gpu_duty_cycle);
  EXPECT_EQ(back.model_slo, test::small_timeline().model_slo);
  ASSERT_EQ(back.requests.size(), 4u);
  EXPECT_EQ(back.requests_of(1)[0].id, 102u);
  ASSERT_EQ(back.drops.size(), 1u);

  const auto expect_error = [&](const std::function<void(nlohmann::json&)>& edit, const std::string& where,
                                const std::string& why) {
    auto j = good;
    edit(j);
    expect_input_error([&] { (void)timeline_from_json(j, "t.json"); }, "t.json", where, why);
  };
  // A string (or another type) where a number, a flag or a name is expected.
  expect_error([](auto& j) { j["spans"][1][4] = "15"; }, "$.spans[1][4]", "expected a number");
  expect_error([](auto& j) { j["spans"][0][6] = 1; }, "$.spans[0][6]", "expected true or false");
  expect_error([](auto& j) { j["transfers"][0][3] = "4 KiB"; }, "$.transfers[0][3]", "expected a number");
  expect_error([](auto& j) { j["queue"][1][2] = nullptr; }, "$.queue[1][2]", "expected a number");
  expect_error([](auto& j) { j["requests"][2][1] = "7"; }, "$.requests[2][1]", "expected a number");
  expect_error([](auto& j) { j["drops"][0][2] = 3; }, "$.drops[0][2]", "expected a drop reason");
  expect_error([](auto& j) { j["gpus"][1] = 7; }, "$.gpus[1]", "expected a string");
  expect_error([](auto& j) { j["columns"][2] = false; }, "$.columns[2]", "expected a string");
  expect_error([](auto& j) { j["kind"] = 5; }, "$.kind", "expected \"timeline\"");
  expect_error([](auto& j) { j["system"] = 5; }, "$.system", "expected a string");
  expect_error([](auto& j) { j["model_slo_us"][0] = "50 ms"; }, "$.model_slo_us[0]", "expected a number");
  expect_error([](auto& j) { j["gpu_physical"][1] = "0"; }, "$.gpu_physical[1]", "expected an integer");
  // Numbers beyond int64 (and beyond what a column holds).
  expect_error([](auto& j) { j["gpu_physical"][1] = std::numeric_limits<std::uint64_t>::max(); }, "$.gpu_physical[1]",
               "expected an integer from 0 to 1");
  expect_error([](auto& j) { j["gpu_server"][0] = 1e20; }, "$.gpu_server[0]", "expected an integer from 0 to 0");
  expect_error([](auto& j) { j["spans"][0][2] = 1e20; }, "$.spans[0][2]", "expected a number from 0 to");
  expect_error([](auto& j) { j["requests"][0][0] = 1e20; }, "$.requests[0][0]", "expected a number from 0 to");
  // Negative and missing values.
  expect_error([](auto& j) { j["spans"][0][3] = -1; }, "$.spans[0][3]", "expected a number from 0 to");
  expect_error([](auto& j) { j["gpu_physical"][0] = -1; }, "$.gpu_physical[0]", "expected an integer from 0 to 1");
  expect_error([](auto& j) { j["duty_cycle_us"][1] = -1; }, "$.duty_cycle_us[1]", "expected a number from 0");
  expect_error([](auto& j) { j["transfers"][0][5] = 1; }, "$.transfers[0][5]", "cannot end before it starts");
  expect_error([](auto& j) { j["servers"] = nlohmann::json::array(); }, "$.gpu_server[0]",
               "expected an index into \"servers\", which is empty");
  expect_error([](auto& j) { j.erase("kind"); }, "$", "missing required member 'kind'");
  expect_error([](auto& j) { j.erase("gpus"); }, "$", "missing required member 'gpus'");
  expect_error([](auto& j) { j.erase("spans"); }, "$", "missing required member 'spans'");
  expect_error([](auto& j) { j.erase("transfer_columns"); }, "$", "missing required member 'transfer_columns'");
  expect_error(
      [](auto& j) {
        j["drop_columns"] = {"time_us", "model"};
      },
      "$.drop_columns", "lacks the column \"reason\"");
  // Arrays of the wrong length, or not arrays at all.
  expect_error([](auto& j) { j["spans"][2] = {1, 2, 3}; }, "$.spans[2]", "expected a row of 9 values, got 3");
  expect_error([](auto& j) { j["spans"][2] = 4; }, "$.spans[2]", "expected an array");
  expect_error([](auto& j) { j["transfers"][0].push_back(1); }, "$.transfers[0]", "expected a row of 6 values");
  expect_error([](auto& j) { j["requests"].erase(3); }, "$.requests", "holds 3 requests; the spans carry 4");
  expect_error([](auto& j) { j["spans"] = {{"gpu", 0}}; }, "$.spans", "expected an array");
  expect_error([](auto& j) { j["models"] = "resnet50"; }, "$.models", "expected an array");
  expect_error([](auto& j) { j = nlohmann::json::array(); }, "$", "expected an object");
}

// Files from before the optional lists (or with lists the reader has always skipped) still load:
// numbers with a fraction in index columns, no physical mapping, shares, SLOs or requests.
TEST(Timeline, SparseOlderFilesStillLoad) {
  const auto old = nlohmann::json::parse(R"({
    "kind": "timeline", "gpus": ["a", "b"], "models": ["m"],
    "gpu_physical": "none", "model_slo_us": {"m": 1}, "gpu_server": [0],
    "columns": ["gpu", "model", "start_us", "end_us", "note"],
    "spans": [[1.0, 0, 5.5, 7, "x"], [0, 0, 1, 2, null]],
    "requests": [], "drops": null
  })");
  const auto t = timeline_from_json(old, "old.json");
  EXPECT_EQ(t.system, "");
  EXPECT_EQ(t.gpu_physical, (std::vector<std::uint32_t>{0, 1}));
  EXPECT_EQ(t.physical_names, (std::vector<std::string>{"gpu 0", "gpu 1"}));
  EXPECT_EQ(t.gpu_shares, (std::vector<std::string>{"1", "1"}));
  EXPECT_EQ(t.model_slo, std::vector<Duration>{Duration()});
  EXPECT_TRUE(t.gpu_server.empty());
  ASSERT_EQ(t.spans.size(), 2u);
  EXPECT_EQ(t.spans[0].gpu, 0u);  // sorted by start
  EXPECT_EQ(t.spans[1].start, Duration::nanoseconds(5500));
  EXPECT_TRUE(t.requests.empty());
  EXPECT_EQ(t.end, Duration::microseconds(7));
}

// load_timeline: a timeline inside a run file is located under $.timeline, and text that is not
// JSON (or holds a number no double can) is an InputError naming the file too.
TEST(Timeline, LoadedFilesSayWhere) {
  const test::TempDir dir;
  auto run = nlohmann::json{{"kind", "run-result"}, {"timeline", to_json(test::small_timeline())}};
  const auto embedded = dir.write("run.json", run.dump());
  EXPECT_EQ(load_timeline(embedded).spans.size(), 3u);
  run["timeline"]["spans"][1][4] = "15";
  const auto bad = dir.write("bad-run.json", run.dump());
  expect_input_error([&] { (void)load_timeline(bad); }, bad, "$.timeline.spans[1][4]", "expected a number");
  const auto text = dir.write("text.json", "{\"kind\": \"timeline\",\n  \"gpus\": [1e400]}");
  try {
    (void)load_timeline(text);
    ADD_FAILURE() << "accepted";
  } catch (const InputError& e) {
    EXPECT_EQ(e.file(), text);
    EXPECT_NE(e.reason().find("invalid JSON"), std::string::npos) << e.what();
  }
  const auto truncated = dir.write("truncated.json", "{\"kind\": \"timeline\",\n  \"gpus\": [");
  try {
    (void)load_timeline(truncated);
    ADD_FAILURE() << "accepted";
  } catch (const InputError& e) {
    EXPECT_EQ(e.file(), truncated);
    EXPECT_TRUE(e.where().starts_with("line 2, column ")) << e.what();
  }
}

TEST(TimelineIndex, WindowAndHitQueriesMatchABruteForceScan) {
  std::mt19937_64 rng(7);
  TimelineData t;
  t.models = {"a", "b"};
  for (int g = 0; g < 6; ++g) {
    t.gpus.push_back("g" + std::to_string(g));
    t.gpu_physical.push_back(static_cast<std::uint32_t>(5 - g / 2));
  }
  // Back-to-back and gapped batches on each slot, some long, some very short.
  for (std::uint32_t g = 0; g < 6; ++g) {
    Time at = Duration::microseconds(static_cast<std::int64_t>(rng() % 100));
    for (int k = 0; k < 400; ++k) {
      const auto len = Duration::microseconds(1 + static_cast<std::int64_t>(rng() % (k % 50 == 0 ? 5000 : 300)));
      t.spans.push_back({0, g, static_cast<std::uint32_t>(rng() % 2), 1, at, at + len, false, 0, 0, {}, {}});
      at = at + len + Duration::microseconds(static_cast<std::int64_t>(rng() % 200));
    }
  }
  std::ranges::stable_sort(t.spans, [](const TimelineSpan& a, const TimelineSpan& b) {
    return a.start < b.start || (a.start == b.start && a.gpu < b.gpu);
  });
  const TimelineIndex index(t);
  for (int q = 0; q < 2000; ++q) {
    const auto row = static_cast<std::size_t>(rng() % index.rows());
    const auto from = Duration::microseconds(static_cast<std::int64_t>(rng() % 200'000));
    const auto to = from + Duration::microseconds(1 + static_cast<std::int64_t>(rng() % 20'000));
    std::set<std::uint32_t> brute, found;
    for (std::uint32_t i = 0; i < t.spans.size(); ++i)
      if (t.spans[i].gpu == index.slot(row) && t.spans[i].start < to && t.spans[i].end > from) brute.insert(i);
    const auto [first, last] = index.range(row, from, to);
    for (auto k = first; k < last; ++k) {
      const auto i = index.spans(row)[k];
      if (t.spans[i].start < to && t.spans[i].end > from) found.insert(i);
    }
    ASSERT_EQ(found, brute) << "row " << row << " [" << from.to_us() << ", " << to.to_us() << ")";
    // Hit: the span covering `from`, if any.
    std::optional<std::uint32_t> expected;
    for (std::uint32_t i = 0; i < t.spans.size(); ++i)
      if (t.spans[i].gpu == index.slot(row) && t.spans[i].start <= from && from < t.spans[i].end) expected = i;
    EXPECT_EQ(index.hit(row, from), expected);
  }
}

// The trace-event format (Trace Event Format, "JSON Object Format"): an object whose traceEvents
// is an array of events with a phase; complete events carry ts and a non-negative dur, counters
// numeric args, metadata names the processes and threads the other events use.
TEST(ChromeTrace, IsValidTraceEventJson) {
  const auto t = pipeline_run_timeline();
  std::ostringstream out;
  write_chrome_trace(out, t);
  const auto trace = nlohmann::json::parse(out.str());
  EXPECT_EQ(trace["displayTimeUnit"], "ms");
  test::TraceCounts counts;
  ASSERT_EQ(test::check_trace_events(trace, &counts), "");
  EXPECT_EQ(counts.complete, t.spans.size() + t.transfers.size());
  EXPECT_EQ(counts.counters, t.queue.size());
  EXPECT_EQ(counts.instants, t.drops.size());
  // Times are exact microseconds: the first batch starts where the timeline says.
  const auto first = std::ranges::find_if(trace["traceEvents"], [](const auto& e) { return e["ph"] == "X"; });
  EXPECT_NEAR((*first)["ts"].get<double>(), t.spans.front().start.to_us(), 1e-3);
}

}  // namespace
}  // namespace servescope::engine
