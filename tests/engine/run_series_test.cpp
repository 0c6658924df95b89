// Chart series from a run: they add up to the run's own totals, the CDF rises to 1, busy time
// stays a percentage, sweeps give attainment against load in order, a broken run or sweep says
// where (an InputError with its JSON path, never a library exception), and decimation keeps
// every bucket's extremes within the point budget.
#include "engine/analysis/run_series.h"

#include <functional>
#include <gtest/gtest.h>
#include <limits>
#include <random>
#include <sstream>

#include "engine/analysis/run_csv.h"
#include "engine/serving/run_result_json.h"
#include "engine/systems/scenario_simulation.h"
#include "model/core/error.h"
#include "model/io/document.h"

namespace servescope::engine {
namespace {

// The demo's mixed-37 workload, 3 s with 0.5 s of warm-up.
SimulationResult demo_result() {
  const auto project = load_project("builtin:projects/demo.json");
  SimulationSpec spec;
  spec.workloads = {"mixed-37"};
  spec.duration = Duration::seconds(3);
  spec.warmup = Duration::milliseconds(500);
  return simulate(project.scenario, spec);
}

nlohmann::json demo_run() {
  return run_result_to_json(demo_result(), "demo");
}

TEST(RunSeries, AddUpToTheRunsTotals) {
  const auto run = demo_run();
  const auto s = run_series(run);
  const double bin_s = run["timeseries"]["bin_s"].get<double>();
  double on_time = 0;
  for (const auto& p : s.goodput_rps.points)
    on_time += p.y * bin_s;
  double expected = 0;
  for (const auto& v : run["timeseries"]["on_time"])
    expected += v.get<double>();
  EXPECT_NEAR(on_time, expected, 1e-6 * expected);
  for (const auto& p : s.attainment_pct.points) {
    EXPECT_GE(p.y, 0.0);
    EXPECT_LE(p.y, 100.0);
  }
  double batches = 0;
  for (const auto& p : s.batch_sizes.points)
    batches += p.y;
  std::uint64_t measured = 0;  // batches after the warm-up, as the per-model figures count them
  for (const auto& m : run["models"])
    measured += m["batches"].get<std::uint64_t>();
  EXPECT_EQ(static_cast<std::uint64_t>(batches), measured);
  ASSERT_FALSE(s.latency_cdf.points.empty());
  for (std::size_t k = 1; k < s.latency_cdf.points.size(); ++k) {
    EXPECT_GE(s.latency_cdf.points[k].x, s.latency_cdf.points[k - 1].x);
    EXPECT_GE(s.latency_cdf.points[k].y, s.latency_cdf.points[k - 1].y);
  }
  EXPECT_NEAR(s.latency_cdf.points.back().y, 1.0, 1e-9);
  ASSERT_EQ(s.busy_by_type.size(), 1u);
  EXPECT_EQ(s.busy_by_type[0].name, "A100");
  double mean = 0;
  for (const auto& p : s.busy_by_type[0].points) {
    EXPECT_GE(p.y, 0.0);
    EXPECT_LE(p.y, 100.0 + 1e-9);
    mean += p.y;
  }
  EXPECT_GT(mean / static_cast<double>(s.busy_by_type[0].points.size()), 30.0);  // a busy demo
  EXPECT_FALSE(s.used_gpus.points.empty());

  auto broken = run;
  broken["timeseries"]["on_time"].erase(0);
  try {
    (void)run_series(broken, "r.json");
    ADD_FAILURE() << "accepted";
  } catch (const InputError& e) {
    EXPECT_EQ(e.where(), "$.timeseries");
  }
}

// Malformed values fail as InputError naming the file, the JSON path and the reason, whether the
// value is of the wrong type, beyond range, missing or in an array of the wrong length.
void expect_input_error(const std::function<void()>& read, const std::string& where, const std::string& why) {
  try {
    read();
    ADD_FAILURE() << "accepted; expected an error at " << where;
  } catch (const InputError& e) {
    EXPECT_EQ(e.file(), "r.json");
    EXPECT_EQ(e.where(), where) << e.what();
    EXPECT_NE(e.reason().find(why), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("r.json: " + where + ": "), std::string::npos) << e.what();
  } catch (const std::exception& e) {
    ADD_FAILURE() << "not an InputError: " << e.what();
  }
}

// The live view draws attainment and goodput from the counters directly (LiveSubscriber::curves);
// they must be the curves the run's JSON gives.
TEST(RunSeries, FromTheCountersTheyAreTheCurvesOfTheJson) {
  const auto result = demo_result();
  const auto from_json = run_series(run_result_to_json(result, "demo"));
  Series attainment, goodput;
  attainment_and_goodput(result.metrics->arrivals_per_bin(), result.metrics->on_time_per_bin(),
                         result.metrics->bin().to_s(), attainment, goodput);
  ASSERT_FALSE(goodput.points.empty());
  EXPECT_EQ(attainment.points, from_json.attainment_pct.points);
  EXPECT_EQ(goodput.points, from_json.goodput_rps.points);
  EXPECT_EQ(attainment.name, from_json.attainment_pct.name);
  EXPECT_EQ(goodput.name, from_json.goodput_rps.name);
}

// A long session's chart merges seconds into wider bins: every request still counted once, the
// attainment of a wide bin that of the seconds it holds together.
TEST(RunSeries, CoarserBinsKeepEveryCount) {
  const std::vector<std::uint64_t> arrivals{10, 20, 30, 40, 50, 60, 70}, on_time{10, 18, 30, 20, 50, 60, 35};
  EXPECT_EQ(coarser_bins(arrivals, 1), arrivals);
  EXPECT_EQ(coarser_bins(arrivals, 3), (std::vector<std::uint64_t>{60, 150, 70}));
  EXPECT_EQ(coarser_bins(arrivals, 10), (std::vector<std::uint64_t>{280}));
  Series attainment, goodput;
  attainment_and_goodput(coarser_bins(arrivals, 3), coarser_bins(on_time, 3), 3.0, attainment, goodput);
  ASSERT_EQ(attainment.points.size(), 3u);
  EXPECT_DOUBLE_EQ(attainment.points[1].y, 100.0 * (20 + 50 + 60) / 150.0);
  EXPECT_DOUBLE_EQ(goodput.points[1].y, (20 + 50 + 60) / 3.0);
  EXPECT_DOUBLE_EQ(goodput.points[1].x, 4.5);  // the middle of seconds 3–6
}

TEST(RunSeries, MalformedRunsSayWhere) {
  const auto run = demo_run();
  // Preconditions of the edits below, on a seeded simulated run: the same on any machine.
  ASSERT_GE(run["timeseries"]["arrivals"].size(), 3u);
  ASSERT_GE(run["timeseries"]["gpu_busy"][0].size(), 2u);
  ASSERT_GE(run["latency_cdf_ms"].size(), 2u);
  const auto expect_error = [&](const std::function<void(nlohmann::json&)>& edit, const std::string& where,
                                const std::string& why) {
    auto j = run;
    edit(j);
    expect_input_error([&] { (void)run_series(j, "r.json"); }, where, why);
  };
  // A string where a number is expected.
  expect_error([](auto& j) { j["timeseries"]["arrivals"][2] = "12"; }, "$.timeseries.arrivals[2]", "expected a number");
  expect_error([](auto& j) { j["timeseries"]["gpu_busy"][0][1] = "busy"; }, "$.timeseries.gpu_busy[0][1]",
               "expected a number");
  expect_error([](auto& j) { j["latency_cdf_ms"][1][0] = "3 ms"; }, "$.latency_cdf_ms[1][0]", "expected a number");
  expect_error([](auto& j) { j["kind"] = 7; }, "$.kind", "expected \"run-result\"");
  expect_error([](auto& j) { j["gpus"]["types"][0] = 5; }, "$.gpus.types[0]", "expected a string");
  expect_error(
      [](auto& j) {
        j["autoscaling"]["windows"] = {{{"start_s", 0}, {"gpus", "two"}}};
      },
      "$.autoscaling.windows[0].gpus", "expected a number");
  // Numbers beyond int64, as a count and as a batch size (a key).
  expect_error([](auto& j) { j["batch_size_histogram"]["4"] = std::numeric_limits<std::uint64_t>::max(); },
               "$.batch_size_histogram.4", "expected an integer from 0");
  expect_error([](auto& j) { j["batch_size_histogram"]["4"] = 1e30; }, "$.batch_size_histogram.4",
               "expected an integer from 0");
  expect_error([](auto& j) { j["batch_size_histogram"]["99999999999999999999"] = 1; },
               "$.batch_size_histogram.99999999999999999999", "batch size");
  expect_error([](auto& j) { j["batch_size_histogram"]["eight"] = 1; }, "$.batch_size_histogram.eight", "batch size");
  // Negative and missing values.
  expect_error([](auto& j) { j["timeseries"]["on_time"][0] = -1; }, "$.timeseries.on_time[0]",
               "expected a number from 0");
  expect_error([](auto& j) { j["timeseries"]["bin_s"] = 0; }, "$.timeseries.bin_s", "must be positive");
  expect_error([](auto& j) { j["timeseries"]["bin_s"] = -1; }, "$.timeseries.bin_s", "expected a number from 0");
  expect_error([](auto& j) { j["latency_cdf_ms"][0][1] = 1.5; }, "$.latency_cdf_ms[0][1]",
               "expected a number from 0 to 1");
  expect_error([](auto& j) { j.erase("timeseries"); }, "$", "missing required member 'timeseries'");
  expect_error([](auto& j) { j["gpus"].erase("shares"); }, "$.gpus", "missing required member 'shares'");
  expect_error([](auto& j) { j["timeseries"].erase("bin_s"); }, "$.timeseries", "missing required member 'bin_s'");
  // Arrays of the wrong length, or not arrays (or objects) at all.
  expect_error([](auto& j) { j["latency_cdf_ms"][1] = {1.0}; }, "$.latency_cdf_ms[1]", "expected [ms, fraction]");
  expect_error([](auto& j) { j["timeseries"]["gpu_busy"].push_back({0.5}); }, "$.timeseries.gpu_busy",
               "expected one series per GPU");
  expect_error([](auto& j) { j["timeseries"]["gpu_busy"][0] = 0.5; }, "$.timeseries.gpu_busy[0]", "expected an array");
  expect_error([](auto& j) { j["gpus"]["shares"] = "1/2"; }, "$.gpus.shares", "expected an array");
  expect_error([](auto& j) { j["autoscaling"]["windows"] = 5; }, "$.autoscaling.windows", "expected an array");
  expect_error([](auto& j) { j["autoscaling"]["windows"] = {3}; }, "$.autoscaling.windows[0]", "expected an object");
  expect_error([](auto& j) { j["batch_size_histogram"] = {1, 2}; }, "$.batch_size_histogram", "expected an object");
  expect_error([](auto& j) { j = nlohmann::json::array(); }, "$", "expected an object");
}

TEST(RunSeries, MalformedSweepsSayWhere) {
  const nlohmann::json sweep = {
      {"kind", "load-sweep"},
      {"system", "reservation"},
      {"points", {{{"load_factor", 0.9}, {"slo_attainment", 0.95}}, {{"load_factor", 0.5}, {"slo_attainment", 1.0}}}}};
  const auto expect_error = [&](const std::function<void(nlohmann::json&)>& edit, const std::string& where,
                                const std::string& why) {
    auto j = sweep;
    edit(j);
    expect_input_error([&] { (void)attainment_vs_load(j, "r.json"); }, where, why);
  };
  expect_error([](auto& j) { j["points"][1]["load_factor"] = "0.5"; }, "$.points[1].load_factor", "expected a number");
  expect_error([](auto& j) { j["points"][0]["slo_attainment"] = -0.5; }, "$.points[0].slo_attainment",
               "expected a number from 0");
  expect_error([](auto& j) { j["points"][1].erase("slo_attainment"); }, "$.points[1]",
               "missing required member 'slo_attainment'");
  expect_error([](auto& j) { j["points"] = {{"a", 1}}; }, "$.points", "expected an array");
  expect_error([](auto& j) { j["system"] = 3; }, "$.system", "expected a string");
  expect_error([](auto& j) { j["kind"] = nullptr; }, "$.kind", "expected \"load-sweep\"");
}

TEST(RunSeries, CsvHasARowPerPointAndQuotesNames) {
  auto s = run_series(demo_run());
  s.busy_by_type[0].name = "A100, \"SXM\"";  // a name a CSV must quote
  std::ostringstream out;
  write_run_csv(out, s);
  std::istringstream in(out.str());
  std::string line;
  std::getline(in, line);
  EXPECT_EQ(line, "chart,series,x,y\r");
  std::size_t rows = 0, quoted = 0;
  while (std::getline(in, line)) {
    ++rows;
    ASSERT_TRUE(line.ends_with('\r'));
    quoted += line.find(",\"A100, \"\"SXM\"\"\",") != std::string::npos ? 1u : 0u;
  }
  std::size_t points = s.attainment_pct.points.size() + s.goodput_rps.points.size() + s.used_gpus.points.size() +
                       s.advised_gpus.points.size() + s.batch_sizes.points.size() + s.latency_cdf.points.size();
  for (const auto& b : s.busy_by_type)
    points += b.points.size();
  EXPECT_EQ(rows, points);
  EXPECT_EQ(quoted, s.busy_by_type[0].points.size());
}

TEST(RunSeries, SweepGivesAttainmentAgainstLoadInOrder) {
  const nlohmann::json sweep = {{"kind", "load-sweep"},
                                {"system", "reservation"},
                                {"plan_system", "ppipe"},
                                {"points",
                                 {{{"load_factor", 0.9}, {"slo_attainment", 0.95}},
                                  {{"load_factor", 0.5}, {"slo_attainment", 1.0}},
                                  {{"load_factor", 0.7}, {"slo_attainment", 0.995}}}}};
  const auto s = attainment_vs_load(sweep);
  EXPECT_EQ(s.name, "reservation (ppipe plan)");
  ASSERT_EQ(s.points.size(), 3u);
  EXPECT_EQ(s.points[0], (SeriesPoint{0.5, 100.0}));
  EXPECT_DOUBLE_EQ(s.points[2].y, 95.0);
  EXPECT_THROW((void)attainment_vs_load(nlohmann::json{{"kind", "run-result"}}), InputError);
}

TEST(Decimate, KeepsExtremesWithinTheBudget) {
  std::mt19937 rng(5);
  std::vector<SeriesPoint> points;
  for (int k = 0; k < 100'000; ++k)
    points.push_back({static_cast<double>(k), static_cast<double>(rng() % 1000)});
  points[54'321].y = 5000;  // a spike
  points[777].y = -40;      // a dip
  const auto out = decimate(points, 800);
  EXPECT_LE(out.size(), 800u);
  EXPECT_GT(out.size(), 400u);
  EXPECT_TRUE(std::ranges::is_sorted(out, {}, &SeriesPoint::x));
  EXPECT_TRUE(std::ranges::any_of(out, [](const SeriesPoint& p) { return p.y == 5000; }));
  EXPECT_TRUE(std::ranges::any_of(out, [](const SeriesPoint& p) { return p.y == -40; }));
  EXPECT_EQ(out.front(), points.front());
  EXPECT_EQ(out.back(), points.back());
  EXPECT_EQ(decimate(points, 200'000).size(), points.size());  // within budget: unchanged
}

}  // namespace
}  // namespace servescope::engine
