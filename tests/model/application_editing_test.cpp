// Editing an application DAG without a view: every refused edit says why, removals take their
// edges along, and the layered layout puts parents above children with few crossings.
#include "model/app/application_editing.h"

#include <gtest/gtest.h>

#include "model/core/error.h"

namespace servescope {
namespace {

Application chain(std::initializer_list<const char*> ids) {
  Application app;
  app.name = "app";
  const char* prev = nullptr;
  for (const auto* id : ids) {
    app.modules.push_back(AppModule{id, ModuleKind::Dnn, "m", {}, 1});
    if (prev) app.edges.push_back({prev, id});
    prev = id;
  }
  return app;
}

TEST(ApplicationEditing, ConnectionsStayADag) {
  const auto app = chain({"a", "b", "c"});
  EXPECT_FALSE(connection_problem(app, "a", "c"));
  EXPECT_NE(connection_problem(app, "c", "a")->find("cycle"), std::string::npos);
  EXPECT_NE(connection_problem(app, "a", "a")->find("itself"), std::string::npos);
  EXPECT_NE(connection_problem(app, "a", "b")->find("already feeds"), std::string::npos);
  EXPECT_NE(connection_problem(app, "a", "zz")->find("no module"), std::string::npos);
  EXPECT_THROW(with_edge(app, "c", "a"), QueryError);
  const auto more = with_edge(app, "a", "c");
  EXPECT_EQ(more.edges.size(), 3u);
  EXPECT_TRUE(more.topological_order());
  EXPECT_EQ(without_edge(more, "a", "c"), app);
  EXPECT_THROW(without_edge(app, "a", "c"), QueryError);
}

TEST(ApplicationEditing, ModulesAddRenameAndRemove) {
  auto app = chain({"a", "b", "c"});
  EXPECT_THROW(with_module(app, AppModule{"b", ModuleKind::Cpu, "", Duration::milliseconds(1), 1}), QueryError);
  EXPECT_EQ(unique_module_id(app, "b"), "b-2");
  EXPECT_EQ(unique_module_id(app, "d"), "d");
  app = with_module(app, AppModule{unique_module_id(app, "b"), ModuleKind::Cpu, "", Duration::milliseconds(1), 1});
  EXPECT_EQ(app.modules.back().id, "b-2");
  const auto renamed = with_renamed_module(app, "b", "detect");
  EXPECT_EQ(renamed.edges[0].to, "detect");
  EXPECT_EQ(renamed.edges[1].from, "detect");
  EXPECT_THROW(with_renamed_module(app, "b", "c"), QueryError);
  const auto removed = without_module(renamed, "detect");
  EXPECT_EQ(removed.modules.size(), 3u);
  EXPECT_TRUE(removed.edges.empty());  // both edges touched it
  EXPECT_THROW(without_module(removed, "detect"), QueryError);
}

TEST(ApplicationEditing, LayeredLayoutPutsParentsAboveChildren) {
  // traffic: decode → detect → {vehicle, person}; person → count.
  Application app = chain({"decode", "detect", "vehicle"});
  app = with_module(app, AppModule{"person", ModuleKind::Dnn, "m", {}, 1});
  app = with_module(app, AppModule{"count", ModuleKind::Cpu, "", Duration::milliseconds(1), 1});
  app = with_edge(app, "detect", "person");
  app = with_edge(app, "person", "count");
  const auto layout = layered_layout(app);
  ASSERT_EQ(layout.size(), 5u);
  EXPECT_EQ(layout[0].layer, 0);
  EXPECT_EQ(layout[1].layer, 1);
  EXPECT_EQ(layout[2].layer, 2);
  EXPECT_EQ(layout[3].layer, 2);
  EXPECT_EQ(layout[4].layer, 3);
  EXPECT_NE(layout[2].position, layout[3].position);
  EXPECT_EQ(layout_crossings(app, layout), 0);
  EXPECT_EQ(layered_layout(app), layout);  // deterministic
}

TEST(ApplicationEditing, BarycentreSweepsRemoveCrossings) {
  // Two sources feeding two sinks crosswise in module order: a→d, b→c with c listed before d.
  Application app;
  app.name = "x";
  for (const auto* id : {"a", "b", "c", "d"})
    app.modules.push_back(AppModule{id, ModuleKind::Dnn, "m", {}, 1});
  app.edges = {{"a", "d"}, {"b", "c"}};
  std::vector<LayoutSlot> naive{{0, 0}, {0, 1}, {1, 0}, {1, 1}};
  EXPECT_EQ(layout_crossings(app, naive), 1);
  EXPECT_EQ(layout_crossings(app, layered_layout(app)), 0);
  app.edges.push_back({"d", "a"});
  EXPECT_THROW(layered_layout(app), QueryError);
}

}  // namespace
}  // namespace servescope
