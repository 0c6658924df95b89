#include "engine/planning/plan_placement.h"

#include <algorithm>
#include <map>

#include "engine/glet/glet_deployment.h"
#include "engine/glet/glet_plan_json.h"
#include "engine/planning/plan_item_id.h"
#include "engine/ppipe/pipeline_deployment.h"
#include "engine/ppipe/pipeline_plan_json.h"
#include "engine/serving/cluster_gpus.h"

namespace servescope::engine {
namespace {

// The models a plan serves, in first-appearance order: the deployments want every one listed.
template <class Range, class Name>
std::vector<std::string> models_of(const Range& items, Name name) {
  std::vector<std::string> out;
  for (const auto& item : items)
    if (std::ranges::find(out, name(item)) == out.end()) out.push_back(name(item));
  return out;
}

}  // namespace

PlanPlacement place_plan(const Scenario& scenario, const nlohmann::json& plan) {
  const auto listing = cluster_gpus(scenario.cluster);
  PlanPlacement out;
  out.gpus.reserve(listing.gpus.size());
  // A running count per server: recounting the GPUs placed so far made placement quadratic in
  // the cluster's size, and the cluster editor places the plan again on every edit.
  std::vector<int> placed_in_server(listing.servers.size(), 0);
  for (const auto& g : listing.gpus)
    out.gpus.push_back(
        PlacedGpu{g.name, g.gpu_type, g.server, listing.server_node[g.server], placed_in_server[g.server]++, {}});
  const auto* kind_value = plan.is_object() && plan.contains("kind") ? &plan["kind"] : nullptr;
  const std::string kind = kind_value && kind_value->is_string() ? kind_value->get<std::string>() : "";
  if (kind == "pipeline-plan") {
    const auto parsed = pipeline_plan_from_json(plan, "plan");
    const auto models = models_of(parsed.pipelines, [](const PlannedPipeline& p) { return p.model; });
    std::vector<PhysicalGpu> physical;
    physical.reserve(listing.gpus.size());
    for (const auto& g : listing.gpus)
      physical.push_back(PhysicalGpu{g.name, g.gpu_type, g.server});
    const auto d = deploy_pipeline_plan(parsed, models, physical, listing.servers, scenario.profiles);
    // Deployed pipelines follow the plan's, stages its partitions; the diagram numbers each
    // model's pipelines in plan order.
    std::map<std::string, std::size_t> pipelines_of;
    for (const auto& p : d.pipelines) {
      const auto& model = d.models[p.model];
      const auto pipeline = ++pipelines_of[model];
      for (std::size_t k = 0; k < p.stages.size(); ++k) {
        const auto& stage = p.stages[k];
        for (const auto slot : stage.pool)
          out.gpus[d.slot_physical[slot]].shares.push_back(
              PlacedShare{model, d.slots[slot].share,
                          "blocks " + std::to_string(stage.blocks.begin) + "–" + std::to_string(stage.blocks.end) +
                              ", batch " + std::to_string(p.planned_batch),
                          pool_item_id(model, pipeline, k + 1), slot, d.slots[slot].name});
      }
    }
    out.placed = true;
  } else if (kind == "glet-plan") {
    const auto parsed = glet_plan_from_json(plan, "plan");
    const auto models = models_of(parsed.models, [](const GletPlannedModel& m) { return m.name; });
    const auto d = deploy_glet_plan(parsed, models, listing.gpus);
    // Slots are the used GPUs' glets that are not free, in plan order, as deploy_glet_plan makes them.
    std::vector<std::string> items;
    for (std::size_t g = 0; g < parsed.layout.gpus.size(); ++g)
      if (parsed.layout.gpus[g].used())
        for (std::size_t k = 0; k < parsed.layout.gpus[g].glets.size(); ++k)
          if (!parsed.layout.gpus[g].glets[k].free()) items.push_back(glet_item_id(g, k + 1));
    for (std::size_t s = 0; s < d.slots.size(); ++s) {
      std::string names, detail;
      for (const auto& h : d.glets[s].hosted) {
        names += (names.empty() ? "" : " + ") + models[h.model];
        detail += (detail.empty() ? "" : "; ") + models[h.model] + " batch " + std::to_string(h.batch);
      }
      out.gpus[d.slot_physical[s]].shares.push_back(PlacedShare{names, d.slots[s].share, detail,
                                                                s < items.size() ? items[s] : std::string(),
                                                                static_cast<std::uint32_t>(s), d.slots[s].name});
    }
    out.placed = true;
  }
  return out;
}

std::vector<const PlacedShare*> PlanPlacement::shares_of(const std::string& item) const {
  std::vector<const PlacedShare*> out;
  for (const auto& g : gpus)
    for (const auto& share : g.shares)
      if (share.item == item) out.push_back(&share);
  std::ranges::sort(out, {}, &PlacedShare::slot);
  return out;
}

}  // namespace servescope::engine
