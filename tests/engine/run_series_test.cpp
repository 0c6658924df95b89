// Chart series from a run: they add up to the run's own totals, the CDF rises to 1, busy time
// stays a percentage, sweeps give attainment against load in order, a broken run says where,
// and decimation keeps every bucket's extremes within the point budget.
#include "engine/analysis/run_series.h"

#include <gtest/gtest.h>
#include <random>
#include <sstream>

#include "engine/analysis/run_csv.h"
#include "engine/sim/run_result_json.h"
#include "engine/sim/scenario_simulation.h"
#include "model/core/error.h"
#include "model/io/document.h"

namespace servescope::engine {
namespace {

nlohmann::json demo_run() {
  const auto project = load_project("builtin:projects/demo.json");
  SimulationSpec spec;
  spec.workloads = {"mixed-37"};
  spec.duration = Duration::seconds(3);
  spec.warmup = Duration::milliseconds(500);
  return run_result_to_json(simulate(project.scenario, spec), project.scenario.name);
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
