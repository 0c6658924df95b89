// A plan laid out as a diagram (README "The GUI", Plans tab), Qt-free so that the layout is
// tested without a display and the GUI only paints it (QtNodes' graph model without its scene,
// docs gui-anchors §0 item 4):
// - pooled pipelines as PPipe's figures draw them (seed 000 Fig. 4/12): per model, each
//   pipeline a chain of pools, one per partition, with GPU type, vGPU size, batch and GPU count
//   as chips, each pool's load against its capacity, the bottleneck marked, and arrows between
//   pools labelled with the transfer time;
// - gpu-let layouts (seed 003 Fig. 9): a bar per GPU split by partition size, coloured by the
//   model each glet serves most, with duty cycle, occupancy and interference;
// - cost plans (seeds 001/004): the application DAG in columns by depth, each module with its
//   tiers, the critical path marked, and its latency budget as a ribbon across the SLO.
// Coordinates are abstract units (a pixel at zoom 1). Items carry a selection id that names the
// same thing everywhere: "pool:MODEL/PIPELINE/PARTITION", "glet:GPU/K", "module:ID".
#pragma once

#include <string>
#include <vector>

#include "engine/serving/stored_plan.h"

namespace servescope::engine {

struct DiagramItem {
  enum class Kind { Heading, Pool, Glet, Module, Ribbon } kind = Kind::Pool;
  std::string id;          // selection id (empty: not selectable)
  std::string colour_key;  // a model or module name: the painter picks its colour
  double x = 0, y = 0, width = 0, height = 0;
  std::string title;
  std::vector<std::string> chips;  // short facts shown as chips (GPU, vGPU, batch, count)
  std::string tooltip;             // the whole story, for hovering
  double load_rps = -1;            // Pool: what it is asked to carry (−1: no load bar)
  double capacity_rps = 0;         // Pool: what it can carry
  bool emphasised = false;         // the bottleneck pool, a critical-path module
  bool free = false;               // Glet: unused
};

struct DiagramArrow {
  std::size_t from = 0, to = 0;  // item indices
  std::string label;             // transfer time (" · " then its bytes, where the plan has them)
  bool emphasised = false;       // along the critical path
  std::string tooltip;           // what crosses it, in full
};

struct PlanDiagram {
  std::string title;
  double width = 0, height = 0;
  std::vector<DiagramItem> items;
  std::vector<DiagramArrow> arrows;
  // What the load bars and ribbons are drawn against; two diagrams side by side share the
  // larger of each (PlanDiagramView::share_scales).
  double max_capacity_rps = 0;
  Duration max_slo;
};

PlanDiagram diagram_of(const StoredPlan& plan);

}  // namespace servescope::engine
