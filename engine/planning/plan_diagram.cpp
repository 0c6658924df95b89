#include "engine/planning/plan_diagram.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <set>

#include "engine/planning/plan_item_id.h"
#include "model/core/text.h"

namespace servescope::engine {
namespace {

constexpr double kMargin = 12;
// The gap holds an arrow's label: its transfer time above the arrow, its bytes below.
constexpr double kPoolWidth = 170, kPoolHeight = 76, kPoolGap = 96;
constexpr double kHeadingHeight = 26;
constexpr double kGpuBarWidth = 640, kGpuBarHeight = 58;
constexpr double kModuleWidth = 190, kModuleGap = 60, kTierLine = 18;  // a chip and its gap

std::string diagram_ms(Duration d) {
  return format_fixed(d.to_ms(), 2) + " ms";
}

DiagramItem heading(const PlanDiagram& d, double y, std::string text) {
  DiagramItem h;
  h.kind = DiagramItem::Kind::Heading;
  h.x = kMargin;
  h.y = y;
  h.width = d.width - 2 * kMargin;
  h.height = kHeadingHeight;
  h.title = std::move(text);
  return h;
}

void add_heading(PlanDiagram& d, double& y, std::string text) {
  d.items.push_back(heading(d, y, std::move(text)));
  y += kHeadingHeight + 4;
}

PlanDiagram pipelines(const PipelinePlan& plan) {
  PlanDiagram d;
  d.title = plan.system + ": " + format_fixed(plan.total_throughput_rps(), 1) + " req/s in all";
  std::size_t longest = 1;
  for (const auto& p : plan.pipelines)
    longest = std::max(longest, p.partitions.size());
  d.width = 2 * kMargin + static_cast<double>(longest) * (kPoolWidth + kPoolGap) - kPoolGap;
  d.width = std::max(d.width, 420.0);
  double y = kMargin;
  for (const auto& m : plan.models) {
    d.max_slo = std::max(d.max_slo, m.slo);
    add_heading(d, y, m.name + ": planned " + format_fixed(m.throughput_rps, 1) + " req/s, SLO " + diagram_ms(m.slo));
    int index = 0;
    for (const auto& p : plan.pipelines) {
      if (p.model != m.name) continue;
      ++index;
      double least = 1e300;
      for (const auto& part : p.partitions)
        least = std::min(least, part.capacity_rps);
      double x = kMargin;
      for (std::size_t k = 0; k < p.partitions.size(); ++k) {
        const auto& part = p.partitions[k];
        DiagramItem pool;
        pool.kind = DiagramItem::Kind::Pool;
        pool.id = pool_item_id(m.name, static_cast<std::size_t>(index), k + 1);
        pool.colour_key = m.name;
        pool.x = x;
        pool.y = y;
        pool.width = kPoolWidth;
        pool.height = kPoolHeight;
        pool.title = "pool " + std::to_string(k + 1) + " · blocks " + std::to_string(part.blocks.begin) + "–" +
                     std::to_string(part.blocks.end);
        pool.chips = {part.gpu, "1/" + std::to_string(part.vgpu_divisor) + " vGPU", "batch " + std::to_string(p.batch),
                      "×" + std::to_string(part.vgpus) + " (" + std::to_string(part.gpus) + " GPUs)"};
        pool.load_rps = p.assigned_rps;
        pool.capacity_rps = part.capacity_rps;
        pool.emphasised = part.capacity_rps <= least && p.partitions.size() > 1;
        pool.tooltip =
            m.name + " pipeline " + std::to_string(index) + ", pool " + std::to_string(k + 1) + "\n" +
            std::to_string(part.vgpus) + " vGPUs of 1/" + std::to_string(part.vgpu_divisor) + " " + part.gpu + " on " +
            std::to_string(part.gpus) + " GPUs, blocks " + std::to_string(part.blocks.begin) + "–" +
            std::to_string(part.blocks.end) + "\nbatch " + std::to_string(p.batch) + " in " + diagram_ms(part.latency) +
            " per vGPU\nload " + format_fixed(p.assigned_rps, 1) + " of " + format_fixed(part.capacity_rps, 1) +
            " req/s capacity" + (pool.emphasised ? "\nthe bottleneck: the pool with the least capacity" : "");
        d.max_capacity_rps = std::max(d.max_capacity_rps, part.capacity_rps);
        d.items.push_back(std::move(pool));
        if (k > 0) {
          const auto& before = p.partitions[k - 1];
          // Bytes where the plan kept them (plans from before it did have only the time).
          const auto bytes = before.transfer_bytes > 0 ? format_bytes(static_cast<std::uint64_t>(before.transfer_bytes))
                                                       : std::string();
          d.arrows.push_back({d.items.size() - 2, d.items.size() - 1,
                              diagram_ms(before.transfer) + (bytes.empty() ? "" : " · " + bytes), false,
                              m.name + " pipeline " + std::to_string(index) + ": pool " + std::to_string(k) +
                                  " → pool " + std::to_string(k + 1) + "\na batch's feature maps after block " +
                                  std::to_string(before.blocks.end - 1) +
                                  (bytes.empty() ? std::string() : ", " + bytes + ",") + " cross the network in " +
                                  diagram_ms(before.transfer)});
        }
        x += kPoolWidth + kPoolGap;
      }
      y += kPoolHeight + 16;
    }
    y += 8;
  }
  d.height = y + kMargin;
  return d;
}

PlanDiagram glets(const GletPlan& plan) {
  PlanDiagram d;
  // plan.gpus is where the planner's scaling stopped, not what the cluster has (the plan page
  // counts against the cluster, ui/plan_view.cpp).
  d.title = plan.system + ": " + std::to_string(plan.layout.gpus_used()) + " " + plan.gpu +
            " GPUs used (scaled up to " + std::to_string(plan.gpus) + ")";
  d.width = 2 * kMargin + kGpuBarWidth;
  double y = kMargin;
  const auto name_of = [&](int model) {
    return model >= 0 && static_cast<std::size_t>(model) < plan.models.size()
               ? plan.models[static_cast<std::size_t>(model)].name
               : std::string("?");
  };
  for (std::size_t g = 0; g < plan.layout.gpus.size(); ++g) {
    const auto& gpu = plan.layout.gpus[g];
    add_heading(d, y, "GPU " + std::to_string(g) + " (" + plan.gpu + ")");
    double x = kMargin;
    for (std::size_t k = 0; k < gpu.glets.size(); ++k) {
      const auto& glet = gpu.glets[k];
      DiagramItem item;
      item.kind = DiagramItem::Kind::Glet;
      item.id = glet_item_id(g, k + 1);
      item.x = x;
      item.y = y;
      item.width = kGpuBarWidth * glet.size_percent / 100.0;
      item.height = kGpuBarHeight;
      item.free = glet.free();
      item.title =
          std::to_string(glet.size_percent) + " %" + (item.free ? " free" : " " + std::string(to_string(glet.mode)));
      double most = -1, interference = 1;
      std::string tip = "GPU " + std::to_string(g) + ", glet of " + std::to_string(glet.size_percent) + " %";
      for (const auto& a : glet.models) {
        const auto name = name_of(a.model);
        if (a.rate_rps > most) {
          most = a.rate_rps;
          item.colour_key = name;
        }
        interference = std::max(interference, a.interference);
        item.chips.push_back(name + " b" + std::to_string(a.batch) + " " + format_fixed(a.rate_rps, 0) + "/s");
        tip += "\n" + name + ": batch " + std::to_string(a.batch) + ", " + format_fixed(a.rate_rps, 1) + " req/s, " +
               diagram_ms(a.latency) + " per batch (interference ×" + format_fixed(a.interference, 2) + ")";
      }
      if (!item.free) {
        item.chips.push_back("duty " + diagram_ms(glet.duty_cycle));
        item.chips.push_back("busy " + format_fixed(100 * glet.occupancy(), 0) + " %");
        if (interference > 1.0005) item.chips.push_back("interference ×" + format_fixed(interference, 2));
        tip += "\nduty cycle " + diagram_ms(glet.duty_cycle) + ", occupancy " +
               format_fixed(100 * glet.occupancy(), 0) + " %";
      }
      item.tooltip = tip;
      d.items.push_back(std::move(item));
      x += kGpuBarWidth * glet.size_percent / 100.0;
    }
    y += kGpuBarHeight + 10;
  }
  d.height = y + kMargin;
  return d;
}

PlanDiagram cost(const CostPlanRecord& plan) {
  PlanDiagram d;
  // Prices are per machine-hour (the catalog's price_per_hour).
  d.title = plan.system + " for " + plan.application + ": cost " + format_fixed(plan.total_cost, 2) + " $/h, " +
            std::to_string(plan.machines) + " machines, SLO " + diagram_ms(plan.slo) +
            (plan.feasible ? "" : " — infeasible: " + plan.reason);
  d.max_slo = plan.slo;
  // Columns by depth (the longest path from a source), so every edge goes to the right.
  std::map<std::string, int> depth;
  for (const auto& m : plan.modules)
    depth[m.id] = 0;
  for (std::size_t round = 0; round < plan.modules.size(); ++round)
    for (const auto& [from, to] : plan.edges)
      if (depth.contains(from) && depth.contains(to)) depth[to] = std::max(depth[to], depth[from] + 1);
  // The critical path: the largest sum of worst-case latencies from a source to a sink.
  std::map<std::string, const CostModuleRecord*> by_id;
  for (const auto& m : plan.modules)
    by_id[m.id] = &m;
  std::vector<const CostModuleRecord*> order;
  for (const auto& m : plan.modules)
    order.push_back(&m);
  std::ranges::stable_sort(order, {}, [&](const CostModuleRecord* m) { return depth[m->id]; });
  std::map<std::string, Duration> reach;
  std::map<std::string, std::string> via;
  for (const auto* m : order) {
    Duration best;
    for (const auto& [from, to] : plan.edges)
      if (to == m->id && reach[from] > best) {
        best = reach[from];
        via[m->id] = from;
      }
    reach[m->id] = best + m->wcl;
  }
  std::set<std::string> critical;
  if (!order.empty()) {
    auto end = std::ranges::max_element(order, {}, [&](const CostModuleRecord* m) { return reach[m->id]; });
    for (std::string at = (*end)->id; !at.empty(); at = via.contains(at) ? via[at] : std::string())
      critical.insert(at);
  }
  std::map<int, double> column_y;
  std::map<std::string, std::size_t> item_of;
  int columns = 0;
  double y = kMargin + kHeadingHeight + 4;
  for (const auto* m : order) {
    const int column = depth[m->id];
    columns = std::max(columns, column + 1);
    DiagramItem item;
    item.kind = DiagramItem::Kind::Module;
    item.id = module_item_id(m->id);
    item.colour_key = m->model.empty() ? m->id : m->model;
    item.x = kMargin + column * (kModuleWidth + kModuleGap);
    item.y = column_y.contains(column) ? column_y[column] : y;
    item.width = kModuleWidth;
    item.title = m->id + (m->model.empty() || m->model == m->id ? "" : " (" + m->model + ")");
    item.emphasised = critical.contains(m->id);
    std::string tip = m->id + ": budget " + diagram_ms(m->budget) + ", worst case " + diagram_ms(m->wcl) + ", rate " +
                      format_fixed(m->rate_rps, 1) + " req/s, cost " + format_fixed(m->cost, 2) + " $/h";
    if (m->cpu) {
      item.chips.push_back("CPU " + diagram_ms(m->wcl));
    } else {
      for (const auto& t : m->tiers) {
        item.chips.push_back(format_fixed(t.machines, t.partial ? 2 : 0) + "× " + t.gpu + " b" +
                             std::to_string(t.batch) + " c" + std::to_string(t.concurrency));
        tip += "\n" + format_fixed(t.machines, 2) + " × " + t.gpu + ", batch " + std::to_string(t.batch) +
               ", concurrency " + std::to_string(t.concurrency) + ", " + format_fixed(t.rate_rps, 1) + " req/s" +
               (t.partial ? " (the partial tier)" : "");
      }
    }
    item.chips.push_back("WCL " + diagram_ms(m->wcl) + " / " + diagram_ms(m->budget));
    if (item.emphasised) tip += "\non the critical path";
    item.tooltip = tip;
    item.height = 28 + kTierLine * static_cast<double>(item.chips.size());
    column_y[column] = item.y + item.height + 18;
    item_of[m->id] = d.items.size();
    d.items.push_back(std::move(item));
  }
  for (const auto& [from, to] : plan.edges)
    if (item_of.contains(from) && item_of.contains(to))
      d.arrows.push_back(
          {item_of[from], item_of[to], "", critical.contains(from) && critical.contains(to),
           from + " → " + to + (critical.contains(from) && critical.contains(to) ? "\non the critical path" : "")});
  d.width = std::max(2 * kMargin + columns * (kModuleWidth + kModuleGap) - kModuleGap, 480.0);
  double bottom = y;
  for (const auto& [column, at] : column_y)
    bottom = std::max(bottom, at);
  // The heading goes in first so that it paints under nothing; then the ribbon: the critical
  // path's worst-case latencies, one after the other, across the SLO.
  d.items.insert(d.items.begin(), heading(d, kMargin, "Modules by depth; the critical path is outlined"));
  for (auto& a : d.arrows) {
    ++a.from;
    ++a.to;
  }
  y = bottom + 6;
  add_heading(d, y, "Latency budget along the critical path (SLO " + diagram_ms(plan.slo) + ")");
  double x = kMargin;
  const double slo_us = std::max(1.0, plan.slo.to_us());
  const double across = d.width - 2 * kMargin;
  for (const auto* m : order) {
    if (!critical.contains(m->id)) continue;
    DiagramItem piece;
    piece.kind = DiagramItem::Kind::Ribbon;
    piece.id = module_item_id(m->id);
    piece.colour_key = m->model.empty() ? m->id : m->model;
    piece.x = x;
    piece.y = y;
    piece.width = across * m->wcl.to_us() / slo_us;
    piece.height = 22;
    piece.title = m->id;
    piece.tooltip = m->id + ": worst case " + diagram_ms(m->wcl) + " of its " + diagram_ms(m->budget) + " budget";
    x += piece.width;
    d.items.push_back(std::move(piece));
  }
  d.height = y + 22 + kMargin;
  return d;
}

}  // namespace

PlanDiagram diagram_of(const StoredPlan& plan) {
  return std::visit(
      [](const auto& p) -> PlanDiagram {
        using T = std::decay_t<decltype(p)>;
        if constexpr (std::is_same_v<T, PipelinePlan>)
          return pipelines(p);
        else if constexpr (std::is_same_v<T, GletPlan>)
          return glets(p);
        else
          return cost(p);
      },
      plan);
}

}  // namespace servescope::engine
