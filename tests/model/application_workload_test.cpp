#include <gtest/gtest.h>

#include "model/app/application.h"
#include "model/workload/workload.h"

using namespace servescope;

TEST(Application, TopologicalOrderSourcesAndSinks) {
  Application app;
  app.modules = {{"sink", ModuleKind::Dnn, "m", {}},
                 {"mid", ModuleKind::Dnn, "m", {}},
                 {"src", ModuleKind::Cpu, "", {}},
                 {"side", ModuleKind::Dnn, "m", {}}};
  app.edges = {{"src", "mid"}, {"mid", "sink"}, {"src", "side"}};
  const auto order = app.topological_order();
  ASSERT_TRUE(order);
  EXPECT_EQ(*order, (std::vector<std::size_t>{2, 1, 0, 3}));
  EXPECT_EQ(app.sources(), std::vector<std::size_t>{2});
  EXPECT_EQ(app.sinks(), (std::vector<std::size_t>{0, 3}));
  app.edges.push_back({"sink", "src"});
  EXPECT_FALSE(app.topological_order());
}

TEST(Workload, PopularityShares) {
  Workload w;
  w.targets = {{TargetKind::Model, "a", 3.0, {}}, {TargetKind::Model, "b", 1.0, {}}};
  EXPECT_EQ(w.shares(), (std::vector<double>{0.75, 0.25}));
  w.popularity = Popularity::Equal;
  EXPECT_EQ(w.shares(), (std::vector<double>{0.5, 0.5}));
  w.popularity = Popularity::Zipf;
  w.zipf_s = 1.0;
  const auto z = w.shares();
  EXPECT_NEAR(z[0], 2.0 / 3.0, 1e-12);
  EXPECT_NEAR(z[1], 1.0 / 3.0, 1e-12);
}

TEST(Application, ModuleSlosSplitTheEndToEndSloAlongTheCostliestPath) {
  // a (10 ms) → {b (20 ms), c (5 ms)}, 120 ms end to end: a and b share the a→b path (30 ms), so
  // a gets 40 ms and b 80 ms; c lies on a→c (15 ms) and gets a third of the SLO; a parallel
  // module alone on its path would get all of it.
  Application app;
  app.name = "fan";
  app.slo = Duration::milliseconds(120);
  app.modules = {{"a", ModuleKind::Dnn, "ma", {}},
                 {"b", ModuleKind::Dnn, "mb", {}},
                 {"c", ModuleKind::Dnn, "mc", {}},
                 {"d", ModuleKind::Cpu, "", Duration::milliseconds(7)}};
  app.edges = {{"a", "b"}, {"a", "c"}};
  const auto slo = app.module_slos(
      {Duration::milliseconds(10), Duration::milliseconds(20), Duration::milliseconds(5), Duration::milliseconds(7)});
  ASSERT_EQ(slo.size(), 4u);
  EXPECT_NEAR(slo[0].to_ms(), 40, 1e-6);
  EXPECT_NEAR(slo[1].to_ms(), 80, 1e-6);
  EXPECT_NEAR(slo[2].to_ms(), 40, 1e-6);
  EXPECT_NEAR(slo[3].to_ms(), 120, 1e-6);  // d is on its own: the whole SLO
}
