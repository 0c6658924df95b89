#include "torchexec/torch_executor.h"

#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstring>
#include <sys/eventfd.h>

#include "model/core/error.h"

namespace servescope::torchexec {

namespace live = engine::live;

namespace {

std::string names_of(const std::map<std::string, std::shared_ptr<const TorchModel>>& models) {
  std::string out;
  for (const auto& [name, m] : models)
    out += (out.empty() ? "" : ", ") + name;
  return out.empty() ? "none" : out;
}

}  // namespace

TorchExecutor::TorchExecutor(std::vector<std::shared_ptr<const TorchModel>> models, TorchExecutorOptions options)
    : options_(std::move(options)) {
  for (auto& m : models) {
    const auto name = m->manifest().name;
    if (!by_name_.emplace(name, std::move(m)).second)
      throw QueryError("two model folders are both named " + name + "; a worker serves each model once");
  }
  if (!by_name_.empty()) device_ = by_name_.begin()->second->device();
  if (options_.hardware_threads <= 0)
    options_.hardware_threads = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  wake_fd_ = ::eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
  if (wake_fd_ < 0) throw QueryError(std::string("eventfd: ") + std::strerror(errno));
  checker_ = std::thread([this] { serve_checks(); });
}

TorchExecutor::~TorchExecutor() {
  {
    const std::lock_guard lock(mutex_);
    stopping_ = true;
  }
  changed_.notify_all();
  for (auto& [id, slot] : slots_)
    if (slot->thread.joinable()) slot->thread.join();
  if (checker_.joinable()) checker_.join();
  if (wake_fd_ >= 0) ::close(wake_fd_);
}

void TorchExecutor::assign(const live::WorkerAssignment& assignment) {
  std::vector<const TorchModel*> models;
  std::string missing;
  for (const auto& name : assignment.models) {
    const auto it = by_name_.find(name);
    models.push_back(it == by_name_.end() ? nullptr : it->second.get());
    if (it == by_name_.end()) missing += (missing.empty() ? "" : ", ") + name;
  }
  // Only a batch of a model it lacks is fatal: the plan may never send this worker one.
  if (!missing.empty() && options_.log)
    options_.log("no model folder for " + missing + " (this worker has " + names_of(by_name_) +
                 "); a batch of one of them will stop it");
  const std::lock_guard lock(mutex_);
  models_ = std::move(models);
  model_names_ = assignment.models;
  slot_share_ = assignment.slot_share;
  for (auto& [id, slot] : slots_)
    slot->threads = threads_of(id);
  // MPS partitions a GPU between processes, and these slots are threads of one process.
  const bool partial = std::ranges::any_of(slot_share_, [](const auto& s) { return s.second < 1.0; });
  if (device_ == ComputeDevice::Cuda && partial && options_.log)
    options_.log(
        "on a GPU this worker's slots are CUDA streams of one process, side by side on the whole GPU: the plan's "
        "shares below 1 are not enforced (MPS partitions processes; --executor cuda runs a process per slot)");
}

// A share 1/s of the CPU is its hardware threads / s, as the profiler measured it.
int TorchExecutor::threads_of(std::uint32_t slot) const {
  const auto share = slot_share_.find(slot);
  if (share == slot_share_.end()) return options_.hardware_threads;
  return std::max(1, static_cast<int>(std::lround(share->second * options_.hardware_threads)));
}

const TorchModel* TorchExecutor::model_at(std::uint32_t index) const {
  return index < models_.size() ? models_[index] : nullptr;
}

void TorchExecutor::submit(const live::RunOrder& order, live::SteadyClock::time_point at) {
  const std::lock_guard lock(mutex_);
  const auto* model = model_at(order.model);
  if (!model)
    throw live::ExecutorFailure(
        "the scheduler sent a batch of " +
        (order.model < model_names_.size() ? model_names_[order.model] : "model #" + std::to_string(order.model)) +
        " and this worker has no folder for it (--models gives " + names_of(by_name_) + ")");
  const auto blocks = static_cast<std::uint32_t>(model->blocks());
  const std::uint32_t end = order.block_end == 0 ? blocks : order.block_end;
  if (end > blocks)
    throw live::ExecutorFailure("the plan runs blocks " + std::to_string(order.block_begin) + ".." +
                                std::to_string(end) + " of " + model->manifest().name + ", whose folder " +
                                model->manifest().folder.string() + " has " + std::to_string(blocks) +
                                " blocks: the plan's profile came from another export");
  auto& slot = slots_[order.slot];
  if (!slot) {
    slot = std::make_unique<Slot>();
    slot->threads = threads_of(order.slot);
    slot->thread = std::thread([this, id = order.slot] { serve_slot(id); });
  }
  slot->queue.push_back(
      Job{order, at + std::chrono::nanoseconds(order.start_in_ns), generation_, model, order.block_begin, end});
  changed_.notify_all();
}

void TorchExecutor::serve_slot(std::uint32_t id) {
  use_own_stream(device_);
  std::unique_lock lock(mutex_);
  auto& slot = *slots_.at(id);
  for (;;) {
    changed_.wait(lock, [&] { return stopping_ || !slot.queue.empty(); });
    if (stopping_) return;
    Job job = std::move(slot.queue.front());
    slot.queue.pop_front();
    slot.running = true;
    // Not before its start: the data plane reserved the slot from then (a clear() ends the wait).
    changed_.wait_until(lock, job.not_before, [&] { return stopping_ || generation_ != job.generation; });
    if (stopping_) return;
    if (generation_ == job.generation) {
      const int threads = slot.threads;
      lock.unlock();
      run_job(job, threads);
      lock.lock();
    }
    slot.running = false;
  }
}

void TorchExecutor::run_job(Job& job, int threads) {
  const auto& order = job.order;
  try {
    // The input is made (or gathered) outside the timed run: a real deployment receives it.
    Tensor input = job.begin == 0 ? job.model->synthesize_input(order.requests)
                                  : store_.take(order.model, job.begin, order.requests);
    set_threads(threads);
    const auto began = live::SteadyClock::now();
    Tensor output = job.model->run(job.begin, job.end, input);
    const auto ran = live::SteadyClock::now() - began;
    const bool final_stage = job.end == job.model->blocks();
    if (!final_stage) store_.put(order.model, job.end, order.requests, output);
    std::vector<Check> checks;
    if (final_stage && options_.check_every > 0) {
      auto samples = output.samples();
      for (std::size_t i = 0; i < order.requests.size(); ++i)
        if (order.requests[i] % options_.check_every == 0)
          checks.push_back(Check{job.model, order.requests[i], std::move(samples[i])});
    }
    const std::lock_guard lock(mutex_);
    if (generation_ != job.generation) return;  // cleared while it ran: the scheduler gave it up
    done_.push_back(
        live::RunReport{order.batch, order.slot, std::chrono::duration_cast<std::chrono::nanoseconds>(ran).count()});
    ++stats_.batches;
    stats_.samples += order.requests.size();
    for (auto& c : checks)
      checks_.push_back(std::move(c));
    if (!checks.empty()) changed_.notify_all();
  } catch (const std::exception& e) {
    fail("batch " + std::to_string(order.batch & ((1ULL << 48) - 1)) + " of " + job.model->manifest().name +
         " (blocks " + std::to_string(job.begin) + ".." + std::to_string(job.end) + ") on slot " +
         std::to_string(order.slot) + ": " + e.what());
  }
  wake();
}

// A request's output against the whole model on the same synthesised input, one at a time on a
// thread of its own so the check never holds a slot.
void TorchExecutor::serve_checks() {
  std::unique_lock lock(mutex_);
  for (;;) {
    changed_.wait(lock, [&] { return stopping_ || !checks_.empty(); });
    if (stopping_) return;
    Check c = std::move(checks_.front());
    checks_.pop_front();
    checking_ = true;
    lock.unlock();
    std::string mismatch;
    double relative = 0;
    try {
      set_threads(1);
      const std::vector<std::uint64_t> id{c.request};
      const Tensor expected = c.model->run_whole(c.model->synthesize_input(id));
      const double scale = std::max(expected.max_abs(), 1e-30);
      relative = c.output.max_abs_difference(expected) / scale;
      if (!(relative <= options_.tolerance))
        mismatch = "request " + std::to_string(c.request) + " of " + c.model->manifest().name +
                   ": its output differs from the whole model's by " + std::to_string(relative) +
                   " of the largest value (tolerance " + std::to_string(options_.tolerance) + ")";
    } catch (const std::exception& e) {
      mismatch = "checking request " + std::to_string(c.request) + " of " + c.model->manifest().name + ": " + e.what();
    }
    if (!mismatch.empty()) fail(std::move(mismatch));
    lock.lock();
    ++stats_.checked;
    stats_.max_difference = std::max(stats_.max_difference, relative);
    checking_ = false;
    changed_.notify_all();
  }
}

void TorchExecutor::finish_checks() {
  std::unique_lock lock(mutex_);
  changed_.wait(lock, [&] { return stopping_ || !failure_.empty() || (checks_.empty() && !checking_); });
}

void TorchExecutor::fail(std::string why) {
  {
    const std::lock_guard lock(mutex_);
    if (failure_.empty()) failure_ = std::move(why);
  }
  wake();
}

void TorchExecutor::wake() const {
  const std::uint64_t one = 1;
  [[maybe_unused]] const auto n = ::write(wake_fd_, &one, sizeof one);  // full counter: already awake
}

std::vector<live::RunReport> TorchExecutor::finished(live::SteadyClock::time_point now) {
  std::uint64_t count = 0;
  [[maybe_unused]] const auto n = ::read(wake_fd_, &count, sizeof count);  // EAGAIN: nothing new
  std::vector<live::RunReport> out;
  bool sweep = false;
  {
    const std::lock_guard lock(mutex_);
    if (!failure_.empty()) throw live::ExecutorFailure(failure_);
    out.swap(done_);
    if (now - last_sweep_ > std::chrono::seconds(1)) {
      last_sweep_ = now;
      sweep = true;
    }
  }
  if (sweep) {
    const auto forgotten = store_.forget_before(now - options_.keep_features);
    const std::lock_guard lock(mutex_);
    stats_.forgotten += forgotten;
  }
  return out;
}

void TorchExecutor::clear() {
  {
    const std::lock_guard lock(mutex_);
    ++generation_;
    for (auto& [id, slot] : slots_)
      slot->queue.clear();
    done_.clear();
  }
  changed_.notify_all();
  store_.clear();
}

std::size_t TorchExecutor::queued() const {
  const std::lock_guard lock(mutex_);
  std::size_t n = 0;
  for (const auto& [id, slot] : slots_)
    n += slot->queue.size() + (slot->running ? 1 : 0);
  return n;
}

std::vector<std::uint8_t> TorchExecutor::feature_map(const live::SendOrder& order) {
  try {
    return store_.take(order.model, order.boundary, order.requests).to_bytes();
  } catch (const std::exception& e) {
    throw live::ExecutorFailure("transfer " + std::to_string(order.transfer & ((1ULL << 48) - 1)) + ": " + e.what());
  }
}

std::optional<std::uint64_t> TorchExecutor::feature_map_bytes(std::uint32_t model, std::uint32_t boundary,
                                                              std::size_t samples) const {
  const std::lock_guard lock(mutex_);
  const auto* m = model_at(model);
  if (!m || boundary == 0 || boundary >= m->blocks()) return std::nullopt;
  return static_cast<std::uint64_t>(m->manifest().cut_bytes(boundary)) * samples;
}

void TorchExecutor::received_feature_map(std::uint32_t model, std::uint32_t boundary,
                                         const std::vector<std::uint64_t>& requests, std::vector<std::uint8_t> bytes) {
  const TorchModel* m = nullptr;
  {
    const std::lock_guard lock(mutex_);
    m = model_at(model);
  }
  if (!m || boundary == 0 || boundary >= m->blocks()) return;  // refused on its header already
  std::vector<std::int64_t> shape{static_cast<std::int64_t>(requests.size())};
  const auto& block = m->manifest().blocks.at(boundary);
  shape.insert(shape.end(), block.input_shape.begin(), block.input_shape.end());
  store_.put(model, boundary, requests, Tensor::from_bytes(bytes, shape, block.input_dtype));
}

TorchExecutorStats TorchExecutor::stats() const {
  const std::lock_guard lock(mutex_);
  return stats_;
}

}  // namespace servescope::torchexec
