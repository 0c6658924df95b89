// Sub-clusters (seed 002 §4.4): one data plane per group of GPUs over its own models. Checked
// end to end through the simulator: a single part changes nothing, and with several parts no
// model ever runs outside its sub-cluster and every request is accounted for.
#include "engine/dataplane/partitioned_data_plane.h"

#include <algorithm>
#include <gtest/gtest.h>
#include <set>
#include <stop_token>

#include "engine/serving/run_result_json.h"
#include "engine/systems/scenario_simulation.h"
#include "engine/systems/symphony/symphony_options.h"
#include "model/core/error.h"
#include "model/io/document.h"

using namespace servescope;
using namespace servescope::engine;

namespace {

Scenario demo() {
  auto s = load_project("builtin:projects/demo.json").scenario;
  std::erase_if(s.workloads, [](const Workload& w) { return w.name != "mixed-37"; });
  return s;
}

SimulationSpec spec(int subclusters) {
  SimulationSpec sp;
  sp.rate_rps = 12000;
  sp.duration = Duration::seconds(3);
  sp.warmup = Duration::milliseconds(500);
  sp.timeline = true;
  sp.edit_options<SymphonyRunOptions>().subclusters = subclusters;
  // The partition is bounded by nodes (SymphonyRunOptions): the time limit is only a guard here,
  // far above what the nodes take under any load, or the answer would depend on the load.
  sp.edit_options<SymphonyRunOptions>().partition_time_limit_s = 120;
  return sp;
}

}  // namespace

TEST(PartitionedDataPlane, OnePartIsTheBarePlane) {
  const auto scenario = demo();
  auto setup = prepare_simulation(scenario, spec(1));
  for (auto& st : setup.streams)
    st.rate_rps *= 12000 / setup.workload_rate_rps;
  SubclusterSplit one;
  one.gpus.resize(1);
  one.models.resize(1);
  for (std::uint32_t g = 0; g < setup.gpus.size(); ++g)
    one.gpus[0].push_back(g);
  for (std::uint32_t m = 0; m < setup.models.size(); ++m)
    one.models[0].push_back(m);
  const auto run = [&](DataPlane& plane) {
    std::vector<BatchLatency> exec;
    for (const auto& m : setup.models)
      exec.push_back(m.latency);
    WorkloadArrivals arrivals(setup.streams, Duration::seconds(2), 3);
    TimelineRecorder timeline;
    Simulator sim(setup.gpus.size(), ExecutionTimes::uniform(std::move(exec), setup.gpus.size()), arrivals, plane,
                  timeline);
    sim.run();
    return timeline.spans_by_start();
  };
  const auto bare = make_data_plane("symphony", setup, spec(1));
  const auto wrapped = make_data_plane("symphony", setup, spec(1), &one);
  ASSERT_NE(dynamic_cast<const PartitionedDataPlane*>(wrapped.get()), nullptr);
  EXPECT_EQ(wrapped->name(), "symphony in 1 sub-clusters");
  const auto a = run(*bare), b = run(*wrapped);
  ASSERT_GT(a.size(), 1000u);
  ASSERT_EQ(a.size(), b.size());
  for (std::size_t i = 0; i < a.size(); ++i) {
    ASSERT_EQ(a[i].batch, b[i].batch) << "span " << i;
    ASSERT_EQ(a[i].gpu, b[i].gpu) << "span " << i;
    ASSERT_EQ(a[i].model, b[i].model) << "span " << i;
    ASSERT_EQ(a[i].size, b[i].size) << "span " << i;
    ASSERT_EQ(a[i].start, b[i].start) << "span " << i;
  }
  const auto summary = simulate(scenario, spec(1));
  ASSERT_EQ(summary.subclusters.size(), 1u);
  EXPECT_EQ(summary.subclusters[0].gpus, 64u);
  EXPECT_EQ(summary.subclusters[0].models.size(), 37u);
}

TEST(PartitionedDataPlane, ModelsRunOnlyInTheirSubclusterAndEveryRequestIsAccountedFor) {
  const auto scenario = demo();
  const auto r = simulate(scenario, spec(4));
  ASSERT_EQ(r.subclusters.size(), 4u);
  std::set<std::string> seen;
  double total_rate = 0;
  for (const auto& p : r.subclusters) {
    EXPECT_EQ(p.gpus, 16u);
    for (const auto& m : p.models)
      EXPECT_TRUE(seen.insert(m).second) << m << " is in two sub-clusters";
    total_rate += p.rate_rps;
  }
  EXPECT_EQ(seen.size(), 37u);
  EXPECT_NEAR(total_rate, 12000, 1e-6);
  // Balanced by GPU load, every sub-cluster gets models to serve.
  for (const auto& p : r.subclusters)
    EXPECT_FALSE(p.models.empty());

  std::vector<int> model_part(r.models.size(), -1);
  for (std::size_t p = 0; p < r.subclusters.size(); ++p)
    for (const auto& name : r.subclusters[p].models)
      model_part[static_cast<std::size_t>(std::ranges::find(r.models, name) - r.models.begin())] = static_cast<int>(p);
  std::set<BatchId> ids;
  ASSERT_FALSE(r.timeline.empty());
  for (const auto& span : r.timeline) {
    EXPECT_EQ(static_cast<int>(span.gpu / 16), model_part[span.model])
        << r.models[span.model] << " ran on GPU " << span.gpu;
    EXPECT_TRUE(ids.insert(span.batch).second) << "batch id " << span.batch << " reused across sub-clusters";
  }
  const auto s = summarize_run(r);
  EXPECT_EQ(s.arrivals, s.completed + s.dropped + s.unfinished);
  EXPECT_GT(s.slo_attainment, 0.99);
  const auto json = run_result_to_json(r, "demo");
  EXPECT_EQ(json["subclusters"]["parts"].size(), 4u);
  EXPECT_FALSE(json["subclusters"]["partition"].get<std::string>().empty());
}

TEST(PartitionedDataPlane, RefusesMoreSubclustersThanModelsOrGpus) {
  EXPECT_THROW(simulate(demo(), spec(65)), QueryError);
  const auto setup = prepare_simulation(demo(), spec(1));
  const auto two_parts_claiming = [&](std::vector<std::uint32_t> models_b, std::vector<std::uint32_t> gpus_b) {
    std::vector<DataPlanePart> parts;
    parts.push_back({{0}, {0}, make_data_plane("eager", setup, spec(1))});
    parts.push_back({std::move(models_b), std::move(gpus_b), make_data_plane("eager", setup, spec(1))});
    PartitionedDataPlane plane(std::move(parts), 2, 2);
  };
  EXPECT_NO_THROW(two_parts_claiming({1}, {1}));
  EXPECT_THROW(two_parts_claiming({0}, {1}), std::invalid_argument);  // model 0 twice
  EXPECT_THROW(two_parts_claiming({1}, {0}), std::invalid_argument);  // GPU 0 twice
  EXPECT_THROW(two_parts_claiming({2}, {1}), std::invalid_argument);  // no model 2
}

// The progress a simulation reports (the GUI's bar) only grows, ends at 1, and comes with a stop
// token as without one: the callback outlives the block that set it up (the sanitizer build
// checks what it reads).
TEST(Simulate, ReportsProgressUpToTheEnd) {
  auto sp = spec(1);
  sp.duration = Duration::seconds(20);  // events enough for progress on the way (every 65,536)
  sp.timeline = false;
  std::stop_source stop;
  for (const bool stoppable : {false, true}) {
    if (stoppable) sp.stop = stop.get_token();
    std::vector<double> seen;
    (void)simulate(demo(), sp, [&](double done) { seen.push_back(done); });
    ASSERT_GE(seen.size(), 2u) << stoppable;
    EXPECT_TRUE(std::ranges::is_sorted(seen)) << stoppable;
    EXPECT_GE(seen.front(), 0.0);
    EXPECT_EQ(seen.back(), 1.0);
    EXPECT_TRUE(std::ranges::any_of(seen, [](double d) { return d > 0 && d < 1; })) << "no progress on the way";
  }
}
