#include "engine/baselines/shepherd_scheduler.h"

#include <algorithm>

namespace servescope::engine {

ShepherdScheduler::ShepherdScheduler(std::vector<ScheduledModel> models, std::vector<GpuSlot> gpus,
                                     ShepherdOptions options)
    : models_(std::move(models)),
      queues_(models_.size()),
      gpus_(std::move(gpus)),
      running_(gpus_.size()),
      options_(options) {}

void ShepherdScheduler::start(DataPlaneContext& context) {
  ctx_ = &context;
}

void ShepherdScheduler::on_timer(std::uint64_t) {}

int ShepherdScheduler::cap(std::uint32_t model) const {
  const int max_b = models_[model].latency.max_batch();
  return options_.max_batch > 0 ? std::min(options_.max_batch, max_b) : max_b;
}

void ShepherdScheduler::drop_hopeless(std::uint32_t model) {
  auto& q = queues_[model];
  const auto& l = models_[model].latency;
  const Time t = now();
  while (!q.empty() && t + options_.d_ctrl + options_.d_data + l.at(1) > q.front().deadline) {
    ctx_->outcomes.dropped(q.front(), DropReason::DeadlineUnreachable);
    q.pop_front();
  }
}

int ShepherdScheduler::feasible(std::uint32_t model, std::size_t gpu, bool with_running) const {
  const auto& q = queues_[model];
  const auto* run = with_running && running_[gpu] && running_[gpu]->model == model ? &*running_[gpu] : nullptr;
  const std::size_t available = q.size() + (run ? run->requests.size() : 0);
  if (available == 0) return 0;
  // Earliest deadline among the candidates: the queue head or the running batch's first.
  Time d = q.empty() ? kNever : q.front().deadline;
  if (run && !run->requests.empty()) d = std::min(d, run->requests.front().deadline);
  const auto& l = models_[model].latency;
  const Time t = now();
  const int limit = std::min<int>(cap(model), static_cast<int>(available));
  // Largest bs with t + d_ctrl + d_data·bs + ℓ(bs) ≤ d (monotone in bs).
  int lo = 0, hi = limit;
  while (lo < hi) {
    const int mid = lo + (hi - lo + 1) / 2;
    if (t + options_.d_ctrl + options_.d_data * mid + l.at(mid) <= d)
      lo = mid;
    else
      hi = mid - 1;
  }
  return lo;
}

std::optional<ShepherdScheduler::Choice> ShepherdScheduler::batch_gen(std::size_t gpu,
                                                                      std::initializer_list<std::uint32_t> subset,
                                                                      bool all) {
  std::optional<Choice> best;
  auto consider = [&](std::uint32_t m) {
    drop_hopeless(m);
    const bool with_running = running_[gpu] && running_[gpu]->model == m;
    const int size = feasible(m, gpu, with_running);
    if (size > 0 && (!best || size > best->size)) best = Choice{m, size, with_running};
  };
  if (all) {
    for (std::uint32_t m = 0; m < models_.size(); ++m)
      consider(m);
  } else {
    for (auto m : subset)
      consider(m);
  }
  return best;
}

void ShepherdScheduler::run(std::size_t gpu, const Choice& choice) {
  auto& q = queues_[choice.model];
  std::vector<Request> pool;
  if (choice.includes_running && running_[gpu]) pool = running_[gpu]->requests;
  // Merge the running batch's requests (if any) with the queue in deadline order and take the
  // first `size`; the rest stay queued.
  std::vector<Request> queued(q.begin(), q.end());
  std::vector<Request> merged;
  merged.reserve(pool.size() + queued.size());
  std::merge(pool.begin(), pool.end(), queued.begin(), queued.end(), std::back_inserter(merged),
             [](const Request& a, const Request& b) { return a.deadline < b.deadline; });
  Batch batch;
  batch.id = next_batch_++;
  batch.model = choice.model;
  batch.gpu = static_cast<std::uint32_t>(gpu);
  batch.start = now() + options_.d_ctrl + options_.d_data * choice.size;
  batch.predicted_end = batch.start + models_[choice.model].latency.at(choice.size);
  batch.requests.assign(merged.begin(), merged.begin() + choice.size);
  q.assign(merged.begin() + choice.size, merged.end());
  running_[gpu] = Running{batch.id, choice.model, batch.requests};
  ctx_->executor.execute(std::move(batch));
}

void ShepherdScheduler::on_request(const Request& request) {
  insert_by_deadline(queues_[request.model], request);
  for (std::size_t gpu = 0; gpu < gpus_.size(); ++gpu) {
    if (queues_[request.model].empty()) break;
    if (!running_[gpu]) {
      if (auto b = batch_gen(gpu, {request.model}, false)) run(gpu, *b);
      continue;
    }
    const auto running_model = running_[gpu]->model;
    auto b = batch_gen(gpu, {request.model, running_model}, false);
    const auto current = static_cast<double>(running_[gpu]->requests.size());
    if (b && b->size >= options_.preempt_factor * current) {
      // Preempt: the running batch's work is wasted; its requests rejoin their queue unless the
      // new batch already includes them.
      auto stopped = std::move(*running_[gpu]);
      running_[gpu].reset();
      ctx_->executor.preempt(stopped.id, static_cast<std::uint32_t>(gpu));
      ++preemptions_;
      if (!b->includes_running) {
        auto& rq = queues_[stopped.model];
        std::vector<Request> merged;
        std::merge(stopped.requests.begin(), stopped.requests.end(), rq.begin(), rq.end(), std::back_inserter(merged),
                   [](const Request& a, const Request& c) { return a.deadline < c.deadline; });
        rq.assign(merged.begin(), merged.end());
        run(gpu, *b);
      } else {
        running_[gpu] = std::move(stopped);  // run() takes the requests from here
        run(gpu, *b);
      }
    }
  }
}

void ShepherdScheduler::on_batch_done(const BatchDone& done) {
  if (running_[done.gpu] && running_[done.gpu]->id == done.id) running_[done.gpu].reset();
  if (running_[done.gpu]) return;  // a batch queued behind it is running now
  if (auto b = batch_gen(done.gpu, {}, true)) run(done.gpu, *b);
}

}  // namespace servescope::engine
