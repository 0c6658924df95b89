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
