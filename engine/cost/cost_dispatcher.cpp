#include "engine/cost/cost_dispatcher.h"

#include <algorithm>
#include <cmath>

namespace servescope::engine {
namespace {

constexpr std::uint64_t kDummyToken = std::uint64_t{1} << 40;  // queue timers use their index

}  // namespace

std::vector<CostSlot> cost_slots(const CostPlan& plan) {
  std::vector<CostSlot> out;
  for (std::size_t m = 0; m < plan.modules.size(); ++m) {
    const auto& tiers = plan.modules[m].tiers;
    for (std::size_t t = 0; t < tiers.size(); ++t) {
      const auto& c = plan.problem.modules[m].configs[tiers[t].config];
      const auto machines = static_cast<std::size_t>(std::ceil(tiers[t].machines - kRateEpsilon));
      std::vector<std::size_t> family;
      const auto& configs = plan.problem.modules[m].configs;
      for (std::size_t k = 0; k < configs.size(); ++k)
        if (configs[k].hw == c.hw && configs[k].concurrency == c.concurrency) family.push_back(k);
      std::ranges::sort(family, [&](std::size_t a, std::size_t b) { return configs[a].batch < configs[b].batch; });
      for (std::size_t k = 0; k < machines; ++k)
        for (int s = 0; s < c.concurrency; ++s)
          out.push_back({m, tiers[t].config, family, t, k, c.batch, c.duration, c.price / c.concurrency});
    }
  }
  return out;
}

CostDispatcher::CostDispatcher(const CostPlan& plan, std::vector<std::uint32_t> module_model)
    : plan_(plan), module_model_(std::move(module_model)), slots_(cost_slots(plan)) {
  const std::size_t n = plan_.modules.size();
  free_at_.assign(slots_.size(), Time());
  last_batch_.assign(slots_.size(), 0);
  module_queues_.resize(n);
  stats_.resize(n);
  dummy_count_.assign(n, 0);
  for (std::size_t m = 0; m < n; ++m) {
    if (module_model_[m] >= model_module_.size()) model_module_.resize(module_model_[m] + 1, 0);
    model_module_[module_model_[m]] = static_cast<std::uint32_t>(m + 1);
  }
  const CostDag dag(plan_.problem);
  fastest_.assign(n, Duration::max());
  for (std::size_t m = 0; m < n; ++m) {
    for (const auto& c : plan_.problem.modules[m].configs)
      fastest_[m] = std::min(fastest_[m], c.duration);
    if (plan_.problem.modules[m].is_fixed()) fastest_[m] = plan_.problem.modules[m].fixed_latency;
  }
  fastest_after_ = dag.longest_after(fastest_);
  // Queues: one per module (TC), per tier (DT) or per machine (RR), each with its slots in rank order.
  for (std::uint32_t g = 0; g < slots_.size(); ++g) {
    const auto& s = slots_[g];
    const auto& tier = plan_.modules[s.module].tiers[s.tier];
    const double rate = tier.rate_rps;
    bool fresh = false;
    switch (plan_.dispatch) {
      case Dispatch::ThroughputCost:
        fresh = module_queues_[s.module].empty();
        break;
      case Dispatch::DirectThroughput:
        fresh = g == 0 || slots_[g - 1].module != s.module || slots_[g - 1].tier != s.tier;
        break;
      case Dispatch::RoundRobin:
        fresh = g == 0 || slots_[g - 1].module != s.module || slots_[g - 1].tier != s.tier ||
                slots_[g - 1].machine != s.machine;
        break;
    }
    if (fresh) {
      Queue q;
      q.module = s.module;
      q.weight = plan_.dispatch == Dispatch::ThroughputCost     ? plan_.modules[s.module].served_rps()
                 : plan_.dispatch == Dispatch::DirectThroughput ? rate
                                                                : rate / std::ceil(tier.machines - kRateEpsilon);
      module_queues_[s.module].push_back(queues_.size());
      queues_.push_back(std::move(q));
    }
    queues_.back().slots.push_back(g);
  }
}

void CostDispatcher::start(DataPlaneContext& context) {
  ctx_ = &context;
  for (std::size_t q = 0; q < queues_.size(); ++q)
    queues_[q].timer = context.clock.create_timer(q);
  dummy_timer_.assign(plan_.modules.size(), 0);
  for (std::size_t m = 0; m < plan_.modules.size(); ++m) {
    const double dummy = plan_.modules[m].dummy_rps;
    if (dummy <= 0 || plan_.dispatch != Dispatch::ThroughputCost) continue;
    dummy_timer_[m] = context.clock.create_timer(kDummyToken + m);
    context.clock.arm(dummy_timer_[m], context.clock.now() + Duration::from_s(1 / dummy));
  }
}

std::size_t CostDispatcher::route(std::size_t module) {
  const auto& qs = module_queues_[module];
  if (qs.size() == 1) return qs.front();
  // Smooth weighted round robin: deterministic, and each queue gets its planned share.
  double total = 0;
  std::size_t best = qs.front();
  for (const auto q : qs) {
    queues_[q].credit += queues_[q].weight;
    total += queues_[q].weight;
    if (queues_[q].credit > queues_[best].credit) best = q;
  }
  queues_[best].credit -= total;
  return best;
}

void CostDispatcher::on_request(const Request& request) {
  const std::size_t module = model_module_.at(request.model) - 1;
  const std::size_t q = route(module);
  queues_[q].pending.push_back(request);
  try_close(q);
}

void CostDispatcher::open(Queue& q) {
  // The highest-ranked slot that can still finish a batch in the oldest request's budget; when
  // none can, the one that finishes first.
  const Time now = ctx_->clock.now();
  const Time deadline = due(q.pending.front(), q.module);
  std::uint32_t first = q.slots.front();
  for (const auto g : q.slots) {
    const Time end = std::max(free_at_[g], now) + slots_[g].duration;
    if (end <= deadline + kLatencyTolerance) {
      q.target = static_cast<int>(g);
      return;
    }
    if (end < std::max(free_at_[first], now) + slots_[first].duration) first = g;
  }
  q.target = static_cast<int>(first);
}

std::size_t CostDispatcher::batch_config(const Queue& q, const CostSlot& slot, Time start,
                                         bool fill_with_dummies) const {
  const auto& configs = plan_.problem.modules[q.module].configs;
  const Time deadline = due(q.pending.front(), q.module);
  const auto real = static_cast<int>(q.pending.size());
  const int have = std::min(slot.batch, real + (fill_with_dummies ? q.dummies : 0));
  std::size_t pick = slot.config;
  if (real > slot.batch) {
    // A backlog: the largest batch the waiting requests fill that still meets the oldest's
    // budget (never a longer batch for a request already late: that only lengthens the backlog).
    for (const auto k : slot.family)
      if (configs[k].batch > configs[pick].batch && configs[k].batch <= real &&
          start + configs[k].duration <= deadline + kLatencyTolerance)
        pick = k;
  } else if (have < slot.batch) {
    // Leaving early: the smallest batch that holds what is there runs fastest.
    for (const auto k : slot.family)
      if (configs[k].batch >= have && configs[k].batch < configs[pick].batch) {
        pick = k;
        break;
      }
  }
  return pick;
}

void CostDispatcher::drop_hopeless(Queue& q) {
  const Time now = ctx_->clock.now();
  // Hopeless: even run at once on the quickest configuration, with every later module running
  // without a wait, the request would finish after its deadline.
  while (!q.pending.empty() &&
         now + fastest_[q.module] + fastest_after_[q.module] > q.pending.front().deadline + kLatencyTolerance) {
    const Request r = q.pending.front();
    q.pending.pop_front();
    ++stats_[q.module].dropped;
    ctx_->outcomes.dropped(r, DropReason::DeadlineUnreachable);
  }
}

void CostDispatcher::try_close(std::size_t index) {
  for (;;) {
    auto& q = queues_[index];
    drop_hopeless(q);
    if (q.pending.empty()) {
      q.target = -1;
      ctx_->clock.disarm(q.timer);
      return;
    }
    if (q.target < 0) open(q);
    const auto& slot = slots_[static_cast<std::size_t>(q.target)];
    const Time now = ctx_->clock.now();
    const auto have = static_cast<int>(q.pending.size()) + q.dummies;
    // Leave when full, or at the last moment the oldest request still meets its budget (but not
    // before the machine is free: waiting for it loses nothing and may fill the batch).
    const Time latest = due(q.pending.front(), q.module) - slot.duration;
    const Time close = std::max(latest, free_at_[static_cast<std::size_t>(q.target)]);
    if (have < slot.batch && close > now) {
      ctx_->clock.arm(q.timer, close);
      return;
    }
    // Dummies exist to close a batch early (they raise the collection rate, Piccolo §3.4); a batch
    // leaving on its deadline runs as small as its real requests allow.
    dispatch(index, have >= slot.batch);
  }
}

void CostDispatcher::dispatch(std::size_t index, bool fill_with_dummies) {
  auto& q = queues_[index];
  const auto g = static_cast<std::uint32_t>(q.target);
  const auto& slot = slots_[g];
  const std::uint32_t model = module_model_[q.module];
  Batch b;
  b.id = next_batch_++;
  b.model = model;
  b.gpu = g;
  const Time now = ctx_->clock.now();
  b.start = std::max(now, free_at_[g]);
  const std::size_t k = batch_config(q, slot, b.start, fill_with_dummies);
  const auto& config = plan_.problem.modules[q.module].configs[k];
  b.kernel = static_cast<std::uint32_t>(k);
  b.predicted_end = b.start + config.duration;
  while (!q.pending.empty() && static_cast<int>(b.requests.size()) < config.batch) {
    b.requests.push_back(q.pending.front());
    q.pending.pop_front();
  }
  Running run{b.requests, q.module};
  auto& st = stats_[q.module];
  while (fill_with_dummies && q.dummies > 0 && static_cast<int>(b.requests.size()) < config.batch) {
    b.requests.push_back(Request{next_dummy_++, model, 0, now, now, true});
    --q.dummies;
    ++st.dummies_run;
  }
  ++st.batches;
  free_at_[g] = b.predicted_end;
  last_batch_[g] = b.id;
  running_.emplace(b.id, std::move(run));
  q.target = -1;
  ctx_->executor.execute(std::move(b));
}

void CostDispatcher::on_timer(std::uint64_t token) {
  if (token >= kDummyToken) {
    const std::size_t m = token - kDummyToken;
    const double rate = plan_.modules[m].dummy_rps;
    ++dummy_count_[m];
    // One dummy to the module's queue; a queue holds at most one batch of them, so dummies never
    // pile up while no real request needs filling out.
    const std::size_t q = module_queues_[m].front();
    int cap = 0;
    for (const auto g : queues_[q].slots)
      cap = std::max(cap, slots_[g].batch);
    if (queues_[q].dummies < cap)
      ++queues_[q].dummies;
    else
      ++stats_[m].dummies_dropped;
    ctx_->clock.arm(dummy_timer_[m], Time() + Duration::from_s(static_cast<double>(dummy_count_[m] + 1) / rate));
    if (!queues_[q].pending.empty()) try_close(q);
    return;
  }
  try_close(static_cast<std::size_t>(token));
}

void CostDispatcher::on_batch_done(const BatchDone& done) {
  if (last_batch_[done.gpu] == done.id) free_at_[done.gpu] = done.end;
  const auto it = running_.find(done.id);
  if (it == running_.end()) return;
  auto& st = stats_[it->second.module];
  const Duration budget = plan_.budgets[it->second.module];
  for (const auto& r : it->second.requests) {
    ++st.requests;
    const Duration latency = done.end - r.arrival;
    st.max_latency = std::max(st.max_latency, latency);
    if (latency > budget + kLatencyTolerance) ++st.over_budget;
  }
  running_.erase(it);
}

}  // namespace servescope::engine
