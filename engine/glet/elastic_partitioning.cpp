#include "engine/glet/elastic_partitioning.h"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <optional>
#include <set>

#include "model/core/error.h"

namespace servescope::engine {
namespace {

struct Slot {
  int gpu = 0;
  int glet = 0;
};

// A candidate configuration of one glet: its models, mode and duty cycle.
struct GletConfig {
  std::vector<GletAssignment> models;
  GletMode mode = GletMode::Saturated;
  Duration duty_cycle;
};

class Partitioner {
 public:
  Partitioner(const GletLatency& latency, const GletPlannerOptions& options, GletLayout layout)
      : lat_(latency), opt_(options), layout_(std::move(layout)) {}

  GletLayout& layout() { return layout_; }

  // Places `rate` of model m; returns what is left unplaced.
  double place(int m, double rate) {
    const double slack = opt_.slack_rps(lat_.models()[static_cast<std::size_t>(m)].rate_rps);
    while (rate > slack) {
      const auto placed = best_fit(m, wanted_size(m, rate), rate);
      if (!placed) break;
      rate -= *placed;
    }
    if (opt_.rule == PlacementRule::GreedyBestFit) return std::max(0.0, rate);
    // Fallbacks (digest §4.6b): saturate whatever free glets are left, largest first; fold the
    // model's residues into one glet to free space, and try again; time share the rest into glets
    // that still have idle time.
    if (rate > slack) rate -= readjust(m, rate, slack);
    if (rate > slack && merge_residues(m)) rate -= readjust(m, rate, slack);
    if (rate > slack && opt_.temporal_sharing) rate -= time_share(m, rate);
    return std::max(0.0, rate);
  }

 private:
  int wanted_size(int m, double rate) const {
    if (opt_.rule == PlacementRule::GreedyBestFit) {
      for (const int s : lat_.options().sizes)
        if (lat_.saturated(m, s).throughput_rps > rate) return s;
      return lat_.options().sizes.back();
    }
    const int p_eff = lat_.efficient_size(m);
    const auto p_req = lat_.required_size(m, rate);
    return p_req ? std::min(p_eff, *p_req) : p_eff;
  }

  Glet& at(Slot s) { return layout_.gpus[static_cast<std::size_t>(s.gpu)].glets[static_cast<std::size_t>(s.glet)]; }

  std::vector<Neighbour> neighbours_of(Slot s) {
    std::vector<Neighbour> out;
    const auto& gpu = layout_.gpus[static_cast<std::size_t>(s.gpu)];
    for (std::size_t g = 0; g < gpu.glets.size(); ++g)
      if (static_cast<int>(g) != s.glet)
        for (const auto& a : gpu.glets[g].models)
          out.push_back({a.model, a.batch, gpu.glets[g].size_percent, busy_fraction(gpu.glets[g], a)});
    return out;
  }

  bool allowed(int size) const { return std::ranges::find(lat_.options().sizes, size) != lat_.options().sizes.end(); }

  GletAssignment assignment(int m, int batch, int size, double rate, const std::vector<Neighbour>& others) const {
    const double alpha = lat_.interference(m, batch, size, others);
    return {m, batch, rate, lat_.effective(m, batch, size, alpha), alpha};
  }

  // One model alone on a glet of `size` (digest §4.6 CONFIGURE): saturated when even its best
  // batch carries less than the rate (always, for greedy best-fit), else a residue that gathers
  // b requests per cycle.
  std::optional<GletConfig> configure(int m, int size, double rate, const std::vector<Neighbour>& others) const {
    const int bs = lat_.max_batch_saturated(m, size, others);
    double capacity = 0;
    if (bs > 0) capacity = bs / lat_.effective(m, bs, size, others).to_s();
    GletConfig c;
    if (bs > 0 && (capacity < rate || opt_.rule == PlacementRule::GreedyBestFit)) {
      c.models = {assignment(m, bs, size, std::min(rate, capacity), others)};
      c.mode = GletMode::Saturated;
      c.duty_cycle = c.models[0].latency;
      return c;
    }
    if (const int b = lat_.max_batch_residue(m, size, rate, others); b > 0) {
      c.models = {assignment(m, b, size, rate, others)};
      c.mode = GletMode::Residue;
      c.duty_cycle = std::max(gather_time(b, rate), c.models[0].latency);
      return c;
    }
    if (bs > 0) {  // carries the rate back to back, just not as a residue
      c.models = {assignment(m, bs, size, rate, others)};
      c.mode = GletMode::Saturated;
      c.duty_cycle = c.models[0].latency;
      return c;
    }
    return std::nullopt;
  }

  // Several models time-shared on one glet (digest §4.8 MERGE_CONFIG): the longest duty cycle,
  // among the points where some model's batch is exactly whole, at which every model still
  // fits its batch and its SLO.
  std::optional<GletConfig> merge_config(const std::vector<std::pair<int, double>>& members, int size,
                                         const std::vector<Neighbour>& others) const {
    if (static_cast<int>(members.size()) > opt_.max_models_per_glet) return std::nullopt;
    Duration d_hi = Duration::max(), d_lo;
    for (const auto& [m, r] : members) {
      const int b = lat_.max_batch_residue(m, size, r, others);
      if (b == 0) return std::nullopt;
      d_hi = std::min(d_hi, std::max(gather_time(b, r), lat_.effective(m, b, size, others)));
      d_lo = std::max(d_lo, lat_.effective(m, 1, size, others));
    }
    std::set<Duration, std::greater<>> points;
    for (const auto& [m, r] : members)
      for (int k = 1; k <= lat_.options().max_batch; ++k)
        if (const auto d = gather_time(k, r); d <= d_hi && d >= d_lo) points.insert(d);
    for (const Duration d : points) {
      GletConfig c;
      c.mode = GletMode::TimeShared;
      c.duty_cycle = d;
      Duration sum;
      bool fits = true;
      for (const auto& [m, r] : members) {
        // The batch that gathers in one cycle; the tolerance keeps exact points exact.
        const int b = static_cast<int>(std::ceil(d.to_s() * r - 1e-9));
        if (b > lat_.options().max_batch) {
          fits = false;
          break;
        }
        c.models.push_back(assignment(m, std::max(1, b), size, r, others));
        sum += c.models.back().latency;
      }
      if (!fits || sum > d) continue;
      for (const auto& a : c.models) {
        const auto slo = lat_.models()[static_cast<std::size_t>(a.model)].slo;
        if (d + (opt_.merge == MergeRule::Conservative ? sum : a.latency) > slo) fits = false;
      }
      if (fits) return c;
    }
    return std::nullopt;
  }

  // Recomputes a glet's latencies beside `others` and checks its condition (digest §2.3); a
  // saturated glet that no longer fits shrinks its batch (digest gap 10) and carries less, the
  // shortfall going back to its model at the end of the pass (the retry). False: it cannot stay.
  bool settle(Glet& g, const std::vector<Neighbour>& others) const {
    Duration sum;
    for (auto& a : g.models) {
      a.interference = lat_.interference(a.model, a.batch, g.size_percent, others);
      a.latency = lat_.effective(a.model, a.batch, g.size_percent, a.interference);
      sum += a.latency;
    }
    if (g.mode == GletMode::Saturated) {
      auto& a = g.models[0];
      if (a.latency * 2 > lat_.models()[static_cast<std::size_t>(a.model)].slo) {
        a.batch = lat_.max_batch_saturated(a.model, g.size_percent, others);
        if (a.batch == 0) return false;
        a.interference = lat_.interference(a.model, a.batch, g.size_percent, others);
        a.latency = lat_.effective(a.model, a.batch, g.size_percent, a.interference);
      }
      a.rate_rps = std::min(a.rate_rps, a.batch / a.latency.to_s());
      g.duty_cycle = a.latency;
      return true;
    }
    if (sum > g.duty_cycle) return false;
    for (const auto& a : g.models) {
      const auto slo = lat_.models()[static_cast<std::size_t>(a.model)].slo;
      if (g.mode == GletMode::Residue && a.batch == 1) {
        if (a.latency * 2 > slo) return false;  // batches of one gather nothing
        continue;
      }
      const Duration wait = g.mode == GletMode::TimeShared && opt_.merge == MergeRule::Conservative ? sum : a.latency;
      if (g.duty_cycle + wait > slo) return false;
    }
    return true;
  }

  // Settles both glets of a GPU against each other until nothing changes. Settling only shrinks
  // batches; with occupancy-weighted interference each glet's latency also feeds the other's
  // slowdown, which converges within a few rounds. False when a glet cannot stay within its SLO
  // (or, never seen, no fixed point comes).
  bool settle_gpu(int gpu_index) {
    auto& gpu = layout_.gpus[static_cast<std::size_t>(gpu_index)];
    bool changed = true;
    for (int round = 0; changed && round < 32; ++round) {
      changed = false;
      for (std::size_t g = 0; g < gpu.glets.size(); ++g) {
        if (gpu.glets[g].free()) continue;
        Glet settled = gpu.glets[g];
        if (!settle(settled, neighbours_of({gpu_index, static_cast<int>(g)}))) return false;
        if (settled != gpu.glets[g]) {
          gpu.glets[g] = std::move(settled);
          changed = true;
        }
      }
    }
    return !changed;
  }

  // Puts `config` on `slot` and settles its GPU. False, with the GPU as it was, when that fails.
  bool place_config(Slot slot, GletConfig config, const std::vector<Glet>& before) {
    put(slot, std::move(config));
    if (settle_gpu(slot.gpu)) return true;
    layout_.gpus[static_cast<std::size_t>(slot.gpu)].glets = before;
    return false;
  }

  void put(Slot slot, GletConfig config) {
    auto& g = at(slot);
    g.models = std::move(config.models);
    g.mode = config.mode;
    g.duty_cycle = config.duty_cycle;
  }

  // A GPU whose glets are all free again becomes one whole free glet.
  void refuse(int gpu) {
    auto& glets = layout_.gpus[static_cast<std::size_t>(gpu)].glets;
    if (opt_.split && glets.size() > 1 && std::ranges::all_of(glets, &Glet::free)) glets = {Glet{100, {}, {}, {}}};
  }

  // Free glets in the order best fit tries them.
  std::vector<Slot> free_slots(int p_ideal) {
    std::vector<Slot> out;
    for (std::size_t g = 0; g < layout_.gpus.size(); ++g)
      for (std::size_t k = 0; k < layout_.gpus[g].glets.size(); ++k)
        if (layout_.gpus[g].glets[k].free()) out.push_back({static_cast<int>(g), static_cast<int>(k)});
    const auto size = [&](Slot s) { return at(s).size_percent; };
    const auto whole = [&](Slot s) { return layout_.gpus[static_cast<std::size_t>(s.gpu)].glets.size() == 1; };
    if (opt_.fit == FitOrder::SmallestFirst) {
      std::ranges::stable_sort(out, [&](Slot a, Slot b) { return size(a) < size(b); });
    } else {
      // Exact size, then a fresh GPU to split, then the smallest leftover that is big enough.
      const auto rank = [&](Slot s) { return size(s) == p_ideal ? 0 : whole(s) ? 1 : 2; };
      std::ranges::stable_sort(
          out, [&](Slot a, Slot b) { return rank(a) != rank(b) ? rank(a) < rank(b) : size(a) < size(b); });
    }
    return out;
  }

  // Tries to put m's residue on `slot` into a partly idle glet instead; true when it moved.
  bool merge_into_earlier(int m, Slot slot) {
    const double rate = at(slot).models[0].rate_rps;
    if (!fold(m, rate, slot)) return false;
    at(slot) = Glet{at(slot).size_percent, {}, {}, {}};
    refuse(slot.gpu);
    settle_gpu(slot.gpu);  // the neighbour lost its co-runner: only faster, so it always settles
    return true;
  }

  // Puts `rate` of m on an allocated glet with idle time (not `except`), fullest first.
  bool fold(int m, double rate, std::optional<Slot> except) {
    std::vector<Slot> hosts;
    for (std::size_t g = 0; g < layout_.gpus.size(); ++g)
      for (std::size_t k = 0; k < layout_.gpus[g].glets.size(); ++k) {
        const Slot s{static_cast<int>(g), static_cast<int>(k)};
        const auto& h = at(s);
        if (h.free() || h.mode == GletMode::Saturated || h.occupancy() >= 1) continue;
        if (except && except->gpu == s.gpu && except->glet == s.glet) continue;
        if (static_cast<int>(h.models.size()) >= opt_.max_models_per_glet) continue;
        if (std::ranges::any_of(h.models, [&](const GletAssignment& a) { return a.model == m; })) continue;
        hosts.push_back(s);
      }
    std::ranges::stable_sort(hosts, [&](Slot a, Slot b) { return at(a).occupancy() > at(b).occupancy(); });
    for (const Slot h : hosts) {
      std::vector<std::pair<int, double>> members;
      for (const auto& a : at(h).models)
        members.emplace_back(a.model, a.rate_rps);
      members.emplace_back(m, rate);
      auto cfg = merge_config(members, at(h).size_percent, neighbours_of(h));
      if (!cfg) continue;
      const auto before = layout_.gpus[static_cast<std::size_t>(h.gpu)].glets;
      if (place_config(h, std::move(*cfg), before)) return true;
    }
    return false;
  }

  // Configures m on a free glet, splitting a whole GPU at `split_at` when given; the rate placed.
  std::optional<double> try_slot(int m, Slot slot, std::optional<int> split_at, double rate) {
    auto& gpu = layout_.gpus[static_cast<std::size_t>(slot.gpu)];
    const auto before = gpu.glets;
    if (split_at) gpu.glets = {Glet{*split_at, {}, {}, {}}, Glet{100 - *split_at, {}, {}, {}}};
    const Slot target = split_at ? Slot{slot.gpu, 0} : slot;
    auto cfg = configure(m, at(target).size_percent, rate, neighbours_of(target));
    if (!cfg) {
      gpu.glets = before;
      return std::nullopt;
    }
    const bool residue = cfg->mode == GletMode::Residue;
    if (!place_config(target, std::move(*cfg), before)) return std::nullopt;
    const double placed = at(target).models[0].rate_rps;
    if (residue && opt_.temporal_sharing && opt_.rule == PlacementRule::Elastic) merge_into_earlier(m, target);
    return placed;
  }

  // FIND_BEST_FIT (Algorithm 1): the first free glet of at least p_ideal that can host m.
  std::optional<double> best_fit(int m, int p_ideal, double rate) {
    for (const Slot s : free_slots(p_ideal)) {
      const int size = at(s).size_percent;
      if (size < p_ideal) continue;
      const bool whole = layout_.gpus[static_cast<std::size_t>(s.gpu)].glets.size() == 1;
      std::optional<int> split_at;
      if (whole && p_ideal < 100 && opt_.split) {
        if (!allowed(100 - p_ideal)) continue;
        split_at = p_ideal;
      }
      if (const auto placed = try_slot(m, s, split_at, rate)) return placed;
    }
    return std::nullopt;
  }

  // Fallback 1: saturate free glets largest first, splitting a whole GPU at p_eff.
  double readjust(int m, double rate, double slack) {
    double placed = 0;
    for (bool progress = true; progress && rate - placed > slack;) {
      progress = false;
      auto slots = free_slots(0);
      std::ranges::stable_sort(slots, [&](Slot a, Slot b) { return at(a).size_percent > at(b).size_percent; });
      for (const Slot s : slots) {
        const bool whole = layout_.gpus[static_cast<std::size_t>(s.gpu)].glets.size() == 1;
        const int p_eff = lat_.efficient_size(m);
        std::optional<int> split_at;
        if (whole && p_eff < 100 && opt_.split && allowed(100 - p_eff)) split_at = p_eff;
        if (const auto r = try_slot(m, s, split_at, rate - placed)) {
          placed += *r;
          progress = true;
          break;
        }
      }
    }
    return placed;
  }

  // Fallback 2: m's residue glets whose rates together fit the saturated throughput of the
  // smallest of them move onto one free glet of that size, freeing the others. True when it did.
  bool merge_residues(int m) {
    std::vector<Slot> residues;
    double combined = 0;
    int smallest = 101;
    for (std::size_t g = 0; g < layout_.gpus.size(); ++g)
      for (std::size_t k = 0; k < layout_.gpus[g].glets.size(); ++k) {
        const auto& l = layout_.gpus[g].glets[k];
        if (l.mode != GletMode::Residue || l.models.size() != 1 || l.models[0].model != m) continue;
        residues.push_back({static_cast<int>(g), static_cast<int>(k)});
        combined += l.models[0].rate_rps;
        smallest = std::min(smallest, l.size_percent);
      }
    if (residues.size() < 2 || lat_.saturated(m, smallest).throughput_rps < combined) return false;
    const auto before = layout_;
    for (const Slot s : residues)
      at(s) = Glet{at(s).size_percent, {}, {}, {}};
    for (const Slot s : residues) {
      refuse(s.gpu);
      settle_gpu(s.gpu);
    }
    if (best_fit(m, smallest, combined).value_or(0) >= combined - opt_.slack_rps(combined)) return true;
    layout_ = before;
    return false;
  }

  // Fallback 3: time share the rest into a glet with idle time.
  double time_share(int m, double rate) { return fold(m, rate, std::nullopt) ? rate : 0; }

  const GletLatency& lat_;
  const GletPlannerOptions& opt_;
  GletLayout layout_;
};

GletLayout whole_free_gpus(int gpus) {
  GletLayout l;
  l.gpus.resize(static_cast<std::size_t>(std::max(0, gpus)));
  for (auto& g : l.gpus)
    g.glets = {Glet{100, {}, {}, {}}};
  return l;
}

}  // namespace

std::vector<int> elastic_order(const GletLatency& latency) {
  std::vector<int> order(latency.models().size());
  std::iota(order.begin(), order.end(), 0);
  const auto room = [&](int m) {
    const auto& gm = latency.models()[static_cast<std::size_t>(m)];
    return gm.rate_rps * gm.slo.to_s();
  };
  std::ranges::sort(order, [&](int a, int b) { return room(a) != room(b) ? room(a) < room(b) : a > b; });
  return order;
}

GletPlan elastic_partitioning(const GletLatency& latency, const GletPlannerOptions& options, int gpus,
                              const GletLayout& start) {
  Partitioner p(latency, options, start.gpus.empty() ? whole_free_gpus(gpus) : start);
  GletPlan plan;
  plan.system = latency.options().interference ? "glet" : "glet-noint";
  plan.gpus = static_cast<int>(p.layout().gpus.size());
  const auto& models = latency.models();
  plan.unplaced_rps.assign(models.size(), 0);
  // Algorithm 1 fails outright when a model's own placement cannot carry its rate.
  std::optional<std::size_t> not_placed;
  for (const int m : elastic_order(latency)) {
    const auto mi = static_cast<std::size_t>(m);
    plan.unplaced_rps[mi] = p.place(m, models[mi].rate_rps);
    if (!not_placed && plan.unplaced_rps[mi] > options.slack_rps(models[mi].rate_rps)) not_placed = mi;
  }
  // Interference placed later can slow a saturated glet below the rate it was given: give each
  // model its shortfall again (the prototype's retry). A top-up can in turn slow a neighbour, so
  // repeat while a round still places something, a few rounds at most, then judge.
  for (int round = 0; round < 4; ++round) {
    bool placed = false;
    for (std::size_t m = 0; m < models.size(); ++m) {
      const double shortfall = models[m].rate_rps - p.layout().assigned_rps(static_cast<int>(m));
      if (shortfall <= options.slack_rps(models[m].rate_rps)) continue;
      plan.unplaced_rps[m] = p.place(static_cast<int>(m), shortfall);
      placed = placed || plan.unplaced_rps[m] < shortfall;
    }
    if (!placed) break;
  }
  plan.layout = std::move(p.layout());
  plan.gpu = latency.options().gpu;
  for (std::size_t m = 0; m < models.size(); ++m)
    plan.models.push_back(
        {models[m].profile->name, models[m].rate_rps, models[m].slo, plan.layout.assigned_rps(static_cast<int>(m))});
  // Then what interference took from glets placed earlier may stay short by the tolerance.
  const auto fail = [&](std::size_t m, double missing) {
    plan.feasible = false;
    plan.message = models[m].profile->name + ": " + std::to_string(std::lround(missing)) + " of " +
                   std::to_string(std::lround(models[m].rate_rps)) + " req/s do not fit on " +
                   std::to_string(plan.gpus) + " GPU(s)";
  };
  plan.feasible = true;
  if (not_placed) fail(*not_placed, plan.unplaced_rps[*not_placed]);
  for (std::size_t m = 0; m < models.size() && plan.feasible; ++m) {
    const double missing = models[m].rate_rps - plan.layout.assigned_rps(static_cast<int>(m));
    const double allowed =
        std::max(options.slack_rps(models[m].rate_rps), options.shortfall_tolerance * models[m].rate_rps);
    if (missing > allowed) fail(m, missing);
  }
  plan.next_gpus = plan.feasible ? std::max(1, plan.layout.gpus_used()) : plan.gpus;
  return plan;
}

GletPlan scale_gpus(int previous_gpus, int gpu_limit, const std::function<GletPlan(int)>& attempt) {
  if (gpu_limit < 1) throw QueryError("glet: the GPU limit must be at least 1");
  previous_gpus = std::clamp(previous_gpus, 1, gpu_limit);
  GletPlan last;
  for (int n = previous_gpus; n <= gpu_limit; ++n) {
    last = attempt(n);
    if (last.feasible) return last;
  }
  last.next_gpus = previous_gpus;
  last.message += " (tried " + std::to_string(previous_gpus) + "–" + std::to_string(gpu_limit) + " GPUs)";
  return last;
}

GletPlan plan_glet(const GletLatency& latency, const GletPlannerOptions& options, int previous_gpus, int gpu_limit) {
  return scale_gpus(previous_gpus, gpu_limit, [&](int n) { return elastic_partitioning(latency, options, n); });
}

}  // namespace servescope::engine
