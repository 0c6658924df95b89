#include "engine/baselines/nexus_scheduler.h"

#include <algorithm>

namespace servescope::engine {

NexusScheduler::NexusScheduler(std::vector<ScheduledModel> models, std::vector<GpuSlot> gpus,
                               std::vector<double> expected_rate_rps, NexusOptions options)
    : models_(std::move(models)),
      gpus_(std::move(gpus)),
      options_(options),
      backends_(gpus_.size()),
      routes_(models_.size()),
      epoch_arrivals_(models_.size(), 0),
      expected_(std::move(expected_rate_rps)) {
  options_.frontends = std::max(1, options_.frontends);
}

void NexusScheduler::start(DataPlaneContext& context) {
  ctx_ = &context;
  epoch_timer_ = ctx_->clock.create_timer(0);
  replan(expected_);
  ctx_->clock.arm(epoch_timer_, now() + options_.epoch);
}

void NexusScheduler::replan(const std::vector<double>& rates) {
  std::vector<SbpModel> input;
  for (std::size_t m = 0; m < models_.size(); ++m)
    input.push_back(SbpModel{models_[m].name, models_[m].latency, models_[m].slo, rates[m]});
  plan_ = squishy_bin_packing(input, static_cast<int>(gpus_.size()), true);
  // Requests already queued on a backend are re-routed under the new plan.
  std::vector<Request> orphans;
  for (auto& b : backends_) {
    for (auto& q : b.queues)
      orphans.insert(orphans.end(), q.begin(), q.end());
    b.models.clear();
    b.batch.clear();
    b.queues.clear();
    b.next = 0;
  }
  for (auto& r : routes_)
    r.clear();
  for (std::size_t g = 0; g < plan_.gpus.size() && g < backends_.size(); ++g) {
    for (const auto& share : plan_.gpus[g].models) {
      backends_[g].models.push_back(share.model);
      backends_[g].batch.push_back(share.batch);
      backends_[g].queues.emplace_back();
      routes_[share.model].push_back(Route{static_cast<std::uint32_t>(g), share.rate_rps});
    }
  }
  wrr_.assign(static_cast<std::size_t>(options_.frontends), {});
  for (auto& f : wrr_) {
    f.resize(models_.size());
    for (std::size_t m = 0; m < models_.size(); ++m)
      f[m].assign(routes_[m].size(), 0.0);
  }
  std::ranges::stable_sort(orphans, {}, &Request::arrival);
  for (const auto& r : orphans)
    dispatch(r);
}

std::optional<std::uint32_t> NexusScheduler::route(std::uint32_t model, std::size_t frontend) {
  auto& routes = routes_[model];
  if (routes.empty()) return std::nullopt;
  // Smooth weighted round robin: deterministic, proportional to the assigned shares.
  auto& current = wrr_[frontend][model];
  double total = 0;
  std::size_t best = 0;
  for (std::size_t i = 0; i < routes.size(); ++i) {
    current[i] += routes[i].weight;
    total += routes[i].weight;
    if (current[i] > current[best]) best = i;
  }
  current[best] -= total;
  return routes[best].gpu;
}

void NexusScheduler::enqueue(std::uint32_t gpu, const Request& r) {
  auto& b = backends_[gpu];
  const auto it = std::ranges::find(b.models, r.model);
  b.queues[static_cast<std::size_t>(it - b.models.begin())].push_back(r);
  if (!b.busy) serve(gpu);
}

void NexusScheduler::on_request(const Request& request) {
  ++epoch_arrivals_[request.model];
  dispatch(request);
}

void NexusScheduler::dispatch(const Request& request) {
  const auto frontend = static_cast<std::size_t>(request.id % static_cast<std::uint64_t>(options_.frontends));
  const auto gpu = route(request.model, frontend);
  if (!gpu) {
    ctx_->outcomes.dropped(request, DropReason::NoCapacity);
    return;
  }
  enqueue(*gpu, request);
}

void NexusScheduler::serve(std::size_t gpu) {
  auto& b = backends_[gpu];
  b.busy = false;
  const auto n = b.models.size();
  for (std::size_t k = 0; k < n; ++k) {
    const auto i = (b.next + k) % n;
    auto& q = b.queues[i];
    const auto model = b.models[i];
    const auto& l = models_[model].latency;
    const int planned = b.batch[i];
    const Time t = now();
    // Sliding window: drop heads that cannot make it in a batch of min(planned, |Q|).
    while (!q.empty() && t + l.at(std::min<int>(planned, static_cast<int>(q.size()))) > q.front().deadline) {
      ctx_->outcomes.dropped(
          q.front(), t + l.at(1) > q.front().deadline ? DropReason::DeadlineUnreachable : DropReason::WindowDrop);
      q.pop_front();
    }
    if (q.empty()) continue;
    const int size = std::min<int>(planned, static_cast<int>(q.size()));
    Batch batch;
    batch.id = next_batch_++;
    batch.model = model;
    batch.gpu = static_cast<std::uint32_t>(gpu);
    batch.start = t;
    batch.predicted_end = t + l.at(size);
    batch.requests.assign(q.begin(), q.begin() + size);
    q.erase(q.begin(), q.begin() + size);
    b.next = (i + 1) % n;
    b.busy = true;
    ctx_->executor.execute(std::move(batch));
    return;
  }
}

void NexusScheduler::on_batch_done(const BatchDone& done) {
  serve(done.gpu);
}

void NexusScheduler::on_timer(std::uint64_t) {
  std::vector<double> rates(models_.size());
  for (std::size_t m = 0; m < models_.size(); ++m)
    rates[m] = static_cast<double>(epoch_arrivals_[m]) / options_.epoch.to_s();
  std::ranges::fill(epoch_arrivals_, 0);
  // A busy backend finishes its current batch; the next one follows the new plan.
  replan(rates);
  for (std::size_t g = 0; g < backends_.size(); ++g)
    if (!backends_[g].busy) serve(g);
  ctx_->clock.arm(epoch_timer_, now() + options_.epoch);
}

}  // namespace servescope::engine
