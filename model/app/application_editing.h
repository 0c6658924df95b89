// Editing an application DAG without any view (QtNodes' lesson, docs gui-anchors §0: the graph
// model works without its scene): add, rename and remove modules, connect and disconnect them,
// each step checked so the result is still a DAG over existing modules, and a layered layout
// (longest-path layers, barycentre ordering) for the editor to place the nodes. Qt-free, so the
// same rules hold in the GUI, the CLI and the tests.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "model/app/application.h"

namespace servescope {

// Why `from → to` may not be added (self-loop, unknown module, already there, or a cycle);
// nullopt when it may.
std::optional<std::string> connection_problem(const Application& app, std::string_view from, std::string_view to);

// Each returns the edited copy, or throws QueryError saying why the edit is refused.
Application with_module(Application app, AppModule module);
Application without_module(Application app, std::string_view id);  // and every edge touching it
Application with_renamed_module(Application app, std::string_view id, std::string new_id);
Application with_edge(Application app, std::string_view from, std::string_view to);
Application without_edge(Application app, std::string_view from, std::string_view to);

// `base`, or `base-2`, `base-3`, … : the first id no module has.
std::string unique_module_id(const Application& app, std::string_view base);

struct LayoutSlot {
  int layer = 0;     // 0 for sources; one more than the deepest parent otherwise
  int position = 0;  // order within the layer, 0 first
  bool operator==(const LayoutSlot&) const = default;
};
// A slot per module (in module order) for a layered drawing, with few crossings: layers by
// longest path from the sources, then a few sweeps ordering each layer by the mean position of
// its neighbours in the layer before (down) and after (up). Deterministic. Needs a DAG.
std::vector<LayoutSlot> layered_layout(const Application& app);
// Edge crossings between adjacent layers of a layout (for tests and for judging layouts).
int layout_crossings(const Application& app, const std::vector<LayoutSlot>& layout);

}  // namespace servescope
