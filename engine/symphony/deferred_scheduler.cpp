#include "engine/symphony/deferred_scheduler.h"

#include <algorithm>
#include <stdexcept>

namespace servescope::engine {
namespace {

constexpr Duration kOneNs = Duration::nanoseconds(1);

}  // namespace

DeferredScheduler::DeferredScheduler(std::vector<ScheduledModel> models, std::vector<GpuSlot> gpus,
                                     DeferredOptions options)
    : gpus_(std::move(gpus)), options_(options), free_(gpus_.size(), Time()) {
  models_.reserve(models.size());
  for (auto& spec : models) {
    models_.push_back(ModelState{
        std::move(spec), {}, {}, false, Phase::Idle, 0, RateEstimator(options_.rate_bin, options_.rate_bins), 1, 0});
  }
  for (auto& m : models_)
    m.target = initial_target(m);
  last_batch_.assign(gpus_.size(), 0);
  pending_latest_.resize(models_.size());
  pending_pick_.resize(models_.size());
  pending_size_.resize(models_.size());
}

std::string DeferredScheduler::name() const {
  switch (options_.exec_rule) {
    case ExecRule::Deferred:
      return "symphony";
    case ExecRule::Eager:
      return options_.model_pick == ModelPick::EarliestLatest ? "clockwork" : "eager";
    case ExecRule::Timeout:
      return "timeout";
    case ExecRule::Latest:
      return "latest";
  }
  return "?";
}

void DeferredScheduler::start(DataPlaneContext& context) {
  ctx_ = &context;
  for (std::uint32_t i = 0; i < models_.size(); ++i)
    models_[i].timer = ctx_->clock.create_timer(i);
  gpu_timer_ = ctx_->clock.create_timer(models_.size());
}

void DeferredScheduler::set_exec_rule(ExecRule rule, Duration timeout) {
  options_.exec_rule = rule;
  options_.timeout = timeout;
  if (!ctx_) return;
  for (std::uint32_t i = 0; i < models_.size(); ++i) {
    if (models_[i].queue.empty()) continue;
    update_candidate(i, kMinusInfinity);
    inform_candidate(i);
  }
  rearm_gpu_timer();
}

std::optional<DeferredScheduler::Candidate> DeferredScheduler::candidate(std::uint32_t model) const {
  const auto& m = models_[model];
  if (!m.has_cand) return std::nullopt;
  return m.cand;
}

int DeferredScheduler::initial_target(const ModelState& m) const {
  // Before any rate is known: the largest batch that fits in half the SLO (no coordination).
  const auto budget = Duration::nanoseconds((m.spec.slo - options_.d_resp).count_ns() / 2);
  return std::max(1, m.spec.latency.largest_within(budget, m.spec.latency.max_batch()));
}

void DeferredScheduler::refresh_target(ModelState& m) {
  const auto rate = m.rate.rate_rps();
  if (!rate || *rate <= 0) return;
  const auto& l = m.spec.latency;
  const int max_b = options_.max_batch > 0 ? std::min(options_.max_batch, l.max_batch()) : l.max_batch();
  const double r_per_ns = *rate / 1e9;
  const auto budget = [&](int bs) { return m.spec.slo - options_.d_ctrl - options_.d_resp - options_.d_data * bs; };
  // Eqs. (1)–(2) with the measured rate: n = GPUs needed at batch bs; the first bs whose
  // staggered latency (1 + 1/n)·ℓ(bs) exceeds the budget is one too many. The test is monotone
  // in bs (ℓ grows, n shrinks), so binary search finds it.
  const auto too_big = [&](int bs) {
    const double lat = static_cast<double>(l.at(bs).count_ns());
    const double n = std::max(1.0, r_per_ns * lat / bs);
    return lat * (1.0 + 1.0 / n) > static_cast<double>(budget(bs).count_ns());
  };
  int lo = 1, hi = max_b + 1;  // find the first bs in [1, max_b] that is too big (hi if none)
  while (lo < hi) {
    const int mid = lo + (hi - lo) / 2;
    if (too_big(mid))
      hi = mid;
    else
      lo = mid + 1;
  }
  int target = std::max(1, lo - 1);
  if (r_per_ns * static_cast<double>(l.at(target).count_ns()) / target <= 1.0) {
    // Less than one GPU's worth of load: Nexus's rule, the largest b whose collection time b/r
    // plus execution fits in the budget.
    const auto fits = [&](int b) {
      return static_cast<double>((l.at(b) + options_.d_data * b).count_ns()) + b / r_per_ns <=
             static_cast<double>(budget(0).count_ns());
    };
    int a = 0, z = max_b;
    while (a < z) {
      const int mid = a + (z - a + 1) / 2;
      if (fits(mid))
        a = mid;
      else
        z = mid - 1;
    }
    target = std::max(1, a);
  }
  m.target = target;
}

void DeferredScheduler::enqueue(ModelState& m, const Request& r) {
  insert_by_deadline(m.queue, r);
}

int DeferredScheduler::form_batch(ModelState& m, Time gpu_free_at) {
  const auto& l = m.spec.latency;
  const int cap = options_.max_batch > 0 ? std::min(options_.max_batch, l.max_batch()) : l.max_batch();
  const Time t_now = now();
  // A batch of b can start at max(now + delay(b), gpu_free_at) and must end by the head's deadline.
  const auto start_of = [&](int b) { return std::max(t_now + delay(b), gpu_free_at); };
  const auto fits = [&](int b) { return start_of(b) + l.at(b) <= due(m.queue.front()); };
  const auto largest_fitting = [&](int limit) {
    limit = std::min(limit, cap);
    if (options_.d_data == Duration()) return l.largest_within(due(m.queue.front()) - start_of(1), limit);
    int a = 0, z = limit;
    while (a < z) {
      const int mid = a + (z - a + 1) / 2;
      if (fits(mid))
        a = mid;
      else
        z = mid - 1;
    }
    return a;
  };
  switch (options_.batch_rule) {
    case BatchRule::Greedy:
      break;
    case BatchRule::WindowDrop:
      while (!m.queue.empty()) {
        const int want = std::min<int>({m.target, static_cast<int>(m.queue.size()), cap});
        if (fits(want)) break;
        ctx_->outcomes.dropped(m.queue.front(), fits(1) ? DropReason::WindowDrop : DropReason::DeadlineUnreachable);
        m.queue.pop_front();
      }
      break;
    case BatchRule::WindowFcfs:
      if (m.queue.empty()) return 0;
      if (!fits(1)) return std::min<int>({m.target, static_cast<int>(m.queue.size()), cap});
      break;
  }
  while (!m.queue.empty() && !fits(1)) {
    ctx_->outcomes.dropped(m.queue.front(), DropReason::DeadlineUnreachable);
    m.queue.pop_front();
  }
  if (m.queue.empty()) return 0;
  return largest_fitting(static_cast<int>(m.queue.size()));
}

void DeferredScheduler::update_candidate(std::uint32_t model, Time gpu_free_at) {
  auto& m = models_[model];
  const int bs = form_batch(m, gpu_free_at);
  if (bs == 0) {
    m.has_cand = false;
    return;
  }
  const auto& l = m.spec.latency;
  const int cap = options_.max_batch > 0 ? std::min(options_.max_batch, l.max_batch()) : l.max_batch();
  const Time d = due(m.queue.front());
  const Time earliest = std::max(now() + delay(bs), gpu_free_at);
  // A late head under WindowFcfs has latest < earliest: it runs as soon as possible.
  const bool late = d - l.at(bs) < earliest;
  const Time latest = late ? earliest : d - l.at(bs);
  Time exec = earliest;
  switch (options_.exec_rule) {
    case ExecRule::Deferred:
      // Past frontrun a new arrival could not join anyway; a full batch cannot grow at all.
      if (bs < cap) exec = d - l.at(bs + 1);
      break;
    case ExecRule::Eager:
      break;
    case ExecRule::Timeout:
      if (bs < cap) exec = m.queue.front().arrival + options_.timeout;
      break;
    case ExecRule::Latest:
      exec = latest;
      break;
  }
  exec = std::clamp(exec, earliest, latest);
  m.cand = Candidate{bs, exec, latest, d, earliest, late};
  m.has_cand = true;
}

void DeferredScheduler::remove_pending(std::uint32_t model) {
  pending_latest_.erase(model);
  pending_pick_.erase(model);
  pending_size_.erase(model);
}

void DeferredScheduler::inform_candidate(std::uint32_t model) {
  auto& m = models_[model];
  remove_pending(model);
  if (!m.has_cand) {
    m.phase = Phase::Idle;
    ctx_->clock.disarm(m.timer);
    return;
  }
  m.phase = Phase::WaitingExec;
  ctx_->clock.arm(m.timer, std::max(now(), m.cand.exec - delay(m.cand.batch)));
}

void DeferredScheduler::make_pending(std::uint32_t model) {
  auto& m = models_[model];
  const auto seq = ++seq_;
  // A late batch (WindowFcfs) is the most urgent there is: first in line, never evicted.
  pending_latest_.set(model, {m.cand.late ? kMinusInfinity : m.cand.latest, seq});
  switch (options_.model_pick) {
    case ModelPick::EarliestLatest:
      break;
    case ModelPick::OldestRequest:
      pending_pick_.set(model, {m.queue.front().arrival, seq});
      break;
    case ModelPick::LargestBatch:
      pending_pick_.set(model, {Duration::nanoseconds(-m.cand.batch), seq});
      break;
  }
  if (options_.d_data != Duration()) pending_size_.set(model, {Duration::nanoseconds(-m.cand.batch), seq});
  m.phase = Phase::Pending;
  // Invalidate timer (digest gap G4): just after the window closes, recompute a smaller batch.
  // A late batch has no window left to close; it simply waits for a GPU.
  if (m.cand.late)
    ctx_->clock.disarm(m.timer);
  else
    ctx_->clock.arm(m.timer, std::max(now(), m.cand.latest - delay(m.cand.batch) + kOneNs));
}

void DeferredScheduler::on_request(const Request& request) {
  auto& m = models_[request.model];
  if (m.rate.record(request.arrival) && options_.batch_rule != BatchRule::Greedy) refresh_target(m);
  enqueue(m, request);
  const bool was_pending = m.phase == Phase::Pending;
  update_candidate(request.model, kMinusInfinity);
  inform_candidate(request.model);
  if (was_pending) rearm_gpu_timer();
}

void DeferredScheduler::on_timer(std::uint64_t token) {
  if (token == models_.size()) {
    on_gpu_timer();
    return;
  }
  on_model_timer(static_cast<std::uint32_t>(token));
}

void DeferredScheduler::on_model_timer(std::uint32_t model) {
  auto& m = models_[model];
  if (m.phase == Phase::Pending) {
    // The window closed without a GPU: shrink the batch (or drop the head) and try again.
    remove_pending(model);
    update_candidate(model, kMinusInfinity);
    inform_candidate(model);
    rearm_gpu_timer();
    return;
  }
  if (m.phase != Phase::WaitingExec || !m.has_cand) return;
  std::optional<std::size_t> gpu;
  if (options_.gpu_pick == GpuPick::LowestId) {
    gpu = free_.lowest_free_by(m.cand.exec);
  } else if (const auto e = free_.earliest(); e && e->second <= m.cand.exec) {
    gpu = e->first;
  }
  if (gpu) {
    grant(model, *gpu);
  } else {
    make_pending(model);
  }
  rearm_gpu_timer();
}

void DeferredScheduler::grant(std::uint32_t model, std::size_t gpu) {
  auto& m = models_[model];
  const Time gpu_free = free_.free_at(gpu);
  free_.set(gpu, kNever);  // reserved while the model side decides (digest gap G5)
  remove_pending(model);
  update_candidate(model, gpu_free);  // the batch may shrink: this GPU may free later than hoped
  if (!m.has_cand) {
    free_.set(gpu, std::max(now(), gpu_free));
  } else {
    const int bs = m.cand.batch;
    Batch batch;
    batch.id = next_batch_++;
    batch.model = model;
    batch.gpu = static_cast<std::uint32_t>(gpu);
    batch.start = m.cand.exec;
    batch.predicted_end = m.cand.exec + m.spec.latency.at(bs);
    batch.window_open = m.cand.earliest;
    batch.window_close = m.cand.latest;
    batch.requests.assign(m.queue.begin(), m.queue.begin() + bs);
    m.queue.erase(m.queue.begin(), m.queue.begin() + bs);
    free_.set(gpu, batch.predicted_end);
    last_batch_[gpu] = batch.id;
    ctx_->executor.execute(std::move(batch));
    update_candidate(model, kMinusInfinity);
  }
  inform_candidate(model);
}

void DeferredScheduler::rearm_gpu_timer() {
  if (pending_latest_.empty()) {
    ctx_->clock.disarm(gpu_timer_);
    return;
  }
  const auto e = free_.earliest();
  if (!e || e->second == kNever) {
    ctx_->clock.disarm(gpu_timer_);
    return;
  }
  Duration lead;
  if (!pending_size_.empty()) lead = delay(static_cast<int>(-pending_size_.top_key().t.count_ns()));
  ctx_->clock.arm(gpu_timer_, std::max(now(), e->second - lead));
}

void DeferredScheduler::on_gpu_timer() {
  const auto e = free_.earliest();
  if (!e || e->second == kNever) return;
  const auto [gpu, t] = *e;
  // Candidates whose window closes before this GPU frees cannot use it; their invalidate timers
  // will shrink them.
  while (!pending_latest_.empty() && pending_latest_.top_key().t < t && !models_[pending_latest_.top()].cand.late) {
    const auto model = pending_latest_.top();
    pending_pick_.erase(model);
    pending_size_.erase(model);
    pending_latest_.erase(model);
  }
  if (!pending_latest_.empty()) {
    const auto model = options_.model_pick == ModelPick::EarliestLatest ? pending_latest_.top() : pending_pick_.top();
    grant(model, gpu);
  }
  rearm_gpu_timer();
}

void DeferredScheduler::set_gpu_available(std::uint32_t gpu, bool available) {
  if (gpu >= free_.size()) return;
  if (gone_.size() < free_.size()) {
    gone_.resize(free_.size(), false);
    free_before_gone_.resize(free_.size());
  }
  if (gone_[gpu] == !available) return;
  gone_[gpu] = !available;
  // A gone GPU is never free, so neither pick finds it; back, it frees when the work it had
  // would have ended (a doubted worker that answers again still has its queue).
  if (!available) {
    free_before_gone_[gpu] = free_.free_at(gpu);
    free_.set(gpu, kNever);
  } else {
    const Time before = free_before_gone_[gpu];
    free_.set(gpu, before == kNever ? now() : std::max(now(), before));
  }
  rearm_gpu_timer();
}

void DeferredScheduler::on_batch_done(const BatchDone& done) {
  // The last batch on a GPU ran long (live mode, noisy executors): the GPU frees later.
  if (last_batch_[done.gpu] == done.id && free_.free_at(done.gpu) != kNever && done.end > free_.free_at(done.gpu)) {
    free_.set(done.gpu, done.end);
    rearm_gpu_timer();
  }
}

}  // namespace servescope::engine
