#include "engine/gpuexec/slot_executor.h"

#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstring>
#include <sys/epoll.h>

namespace servescope::engine::gpuexec {

using live::ExecutorFailure;
using live::SteadyClock;

SlotExecutor::SlotExecutor(SlotExecutorOptions options) : options_(std::move(options)) {
  if (!options_.slot_command) throw ExecutorFailure("the GPU executor needs the command of its slot processes");
  epoll_ = ::epoll_create1(EPOLL_CLOEXEC);
  if (epoll_ < 0) throw ExecutorFailure(std::string("epoll_create1: ") + std::strerror(errno));
}

SlotExecutor::~SlotExecutor() {
  slots_.clear();  // stops the processes
  if (epoll_ >= 0) ::close(epoll_);
}

void SlotExecutor::assign(const live::WorkerAssignment& assignment) {
  models_ = assignment.models;
  for (auto it = slots_.begin(); it != slots_.end();) {
    const auto share = assignment.slot_share.find(it->first);
    if (share != assignment.slot_share.end() && std::abs(share->second - it->second.share) < 1e-9) {
      ++it;
      continue;
    }
    // A slot the plan no longer has, or one whose share changed: MPS fixes a client's share
    // when it connects, so it is a new process.
    if (it->second.process) ::epoll_ctl(epoll_, EPOLL_CTL_DEL, it->second.process->read_fd(), nullptr);
    it = slots_.erase(it);
  }
  for (const auto& [index, share] : assignment.slot_share) {
    auto& s = slots_[index];
    s.share = share;
    slot(index);
  }
}

SlotExecutor::Slot& SlotExecutor::slot(std::uint32_t index) {
  auto& s = slots_[index];
  if (s.process) return s;
  const auto command = options_.slot_command(index, s.share);
  if (options_.log)
    options_.log("slot " + std::to_string(index) + ": starting " + command.argv.front() + " at " +
                 std::to_string(static_cast<int>(std::lround(s.share * 100))) + " % and calibrating");
  s.process = std::make_unique<SlotProcess>(command, options_.ready_within);
  s.announced = false;
  ++stats_.slots_started;
  epoll_event event{};
  event.events = EPOLLIN;
  event.data.u32 = index;
  if (::epoll_ctl(epoll_, EPOLL_CTL_ADD, s.process->read_fd(), &event) != 0)
    throw ExecutorFailure(std::string("epoll_ctl: ") + std::strerror(errno));
  return s;
}

bool SlotExecutor::ready(Slot& s, std::uint32_t index) {
  if (!s.process->poll_ready()) return false;
  if (!s.announced && options_.log) {
    const auto& r = s.process->ready();
    options_.log("slot " + std::to_string(index) + ": " + r.device + "; a GEMM takes " +
                 std::to_string(r.gemm.per_unit_ns / 1e3) + " us, streaming " +
                 std::to_string(1.0 / r.stream.per_unit_ns) + " GB/s");
  }
  s.announced = true;
  return true;
}

void SlotExecutor::wait_ready() {
  for (auto& [index, s] : slots_)
    if (s.process) {
      s.process->wait_ready();
      ready(s, index);
    }
}

const ModelProfile* SlotExecutor::profile_of(std::uint32_t model) const {
  if (!options_.profiles || model >= models_.size()) return nullptr;
  for (const auto& p : options_.profiles->models)
    if (p.name == models_[model]) return &p;
  return nullptr;
}

void SlotExecutor::submit(const live::RunOrder& order, SteadyClock::time_point at) {
  auto& s = slot(order.slot);
  s.queue.push_back(Pending{order, at + std::chrono::nanoseconds(order.start_in_ns)});
  start(s, order.slot, at);
}

void SlotExecutor::start(Slot& s, std::uint32_t index, SteadyClock::time_point now) {
  if (s.running || s.queue.empty() || s.queue.front().not_before > now || !ready(s, index)) return;
  auto order = std::move(s.queue.front().order);
  s.queue.pop_front();
  SlotRun run;
  run.batch = order.batch;
  run.target_ns = order.run_ns;
  run.compute_fraction = options_.compute_fraction;
  if (const auto* profile = profile_of(order.model)) {
    if (order.block_begin > 0) {
      for (const auto request : order.requests) {
        auto bytes = sample({order.model, order.block_begin, request});
        run.input.insert(run.input.end(), bytes.begin(), bytes.end());
      }
      ++stats_.maps_uploaded;
    }
    const auto end = order.block_end == 0 ? static_cast<std::uint32_t>(profile->blocks()) : order.block_end;
    if (end < static_cast<std::uint32_t>(profile->blocks())) {
      const auto per_sample = static_cast<std::uint64_t>(profile->cut_bytes(static_cast<int>(end)));
      run.output_bytes = per_sample * order.requests.size();
      for (std::size_t i = 0; i < order.requests.size(); ++i)
        produced_[{order.model, end, order.requests[i]}] = Produced{index, order.batch, i, per_sample, now};
    }
  }
  s.process->send(run);
  s.running = std::move(order);
  s.abandoned = false;
}

std::vector<live::RunReport> SlotExecutor::finished(SteadyClock::time_point now) {
  std::vector<live::RunReport> out;
  for (auto& [index, s] : slots_) {
    if (!s.process) continue;
    for (auto& message : s.process->take_arrived()) {
      auto* done = std::get_if<SlotDone>(&message);
      if (!done || !s.running || s.running->batch != done->batch) continue;
      if (!s.abandoned) out.push_back(live::RunReport{done->batch, index, done->run_ns});
      if (!s.abandoned && !done->output.empty()) {
        fetched_[{index, done->batch}] = Output{std::move(done->output), s.running->requests.size(), now};
        ++stats_.maps_fetched;
      }
      stats_.copy_ns += done->copy_ns;
      ++stats_.batches;
      s.running.reset();
    }
    start(s, index, now);
  }
  forget_old(now);
  return out;
}

std::optional<SteadyClock::time_point> SlotExecutor::next_event() const {
  // A slot still calibrating wakes the worker through wake_fd() when it is ready.
  std::optional<SteadyClock::time_point> best;
  for (const auto& [index, s] : slots_)
    if (!s.running && s.announced && !s.queue.empty() && (!best || s.queue.front().not_before < *best))
      best = s.queue.front().not_before;
  return best;
}

void SlotExecutor::clear() {
  for (auto& [index, s] : slots_) {
    s.queue.clear();
    if (s.running) s.abandoned = true;
  }
  produced_.clear();
  received_.clear();
  fetched_.clear();
}

std::size_t SlotExecutor::queued() const {
  std::size_t n = 0;
  for (const auto& [index, s] : slots_)
    n += s.queue.size() + (s.running && !s.abandoned ? 1 : 0);
  return n;
}

std::vector<std::uint8_t> SlotExecutor::sample(const SampleKey& key) {
  if (auto it = received_.find(key); it != received_.end()) {
    auto bytes = std::move(it->second.bytes);
    received_.erase(it);
    return bytes;
  }
  const auto it = produced_.find(key);
  const auto& [model, boundary, request] = key;
  if (it == produced_.end())
    throw ExecutorFailure("no sample of request " + std::to_string(request) + " at block " + std::to_string(boundary) +
                          " of model " + std::to_string(model) + " on this worker");
  const auto where = it->second;
  produced_.erase(it);
  const std::pair output{where.slot, where.batch};
  const auto fetched = fetched_.find(output);
  if (fetched == fetched_.end())
    throw ExecutorFailure("request " + std::to_string(request) + "'s sample at block " + std::to_string(boundary) +
                          " is in batch " + std::to_string(where.batch) + " on slot " + std::to_string(where.slot) +
                          ", which has not finished");
  auto& kept = fetched->second;
  const auto begin = where.index * where.sample_bytes;
  if (begin + where.sample_bytes > kept.bytes.size())
    throw ExecutorFailure("slot " + std::to_string(where.slot) + " sent " + std::to_string(kept.bytes.size()) +
                          " bytes of batch " + std::to_string(where.batch) + "'s output; sample " +
                          std::to_string(where.index) + " needs " + std::to_string(begin + where.sample_bytes));
  std::vector<std::uint8_t> bytes(kept.bytes.begin() + static_cast<std::ptrdiff_t>(begin),
                                  kept.bytes.begin() + static_cast<std::ptrdiff_t>(begin + where.sample_bytes));
  if (--kept.samples_left == 0) fetched_.erase(fetched);
  return bytes;
}

std::vector<std::uint8_t> SlotExecutor::feature_map(const live::SendOrder& order) {
  std::vector<std::uint8_t> out;
  for (const auto request : order.requests) {
    auto bytes = sample({order.model, order.boundary, request});
    out.insert(out.end(), bytes.begin(), bytes.end());
  }
  return out;
}

std::optional<std::uint64_t> SlotExecutor::feature_map_bytes(std::uint32_t model, std::uint32_t boundary,
                                                             std::size_t samples) const {
  const auto* profile = profile_of(model);
  if (!profile || boundary == 0 || boundary >= static_cast<std::uint32_t>(profile->blocks())) return std::nullopt;
  return static_cast<std::uint64_t>(profile->cut_bytes(static_cast<int>(boundary))) * samples;
}

void SlotExecutor::received_feature_map(std::uint32_t model, std::uint32_t boundary,
                                        const std::vector<std::uint64_t>& requests, std::vector<std::uint8_t> bytes) {
  if (requests.empty()) return;
  const auto per_sample = bytes.size() / requests.size();
  const auto now = SteadyClock::now();
  for (std::size_t i = 0; i < requests.size(); ++i) {
    const auto from = bytes.begin() + static_cast<std::ptrdiff_t>(i * per_sample);
    received_[{model, boundary, requests[i]}] =
        Received{std::vector<std::uint8_t>(from, from + static_cast<std::ptrdiff_t>(per_sample)), now};
  }
}

void SlotExecutor::forget_old(SteadyClock::time_point now) {
  // A scan of every kept sample, so once a second, not once a batch.
  if (now - last_forget_ < std::chrono::seconds(1)) return;
  last_forget_ = now;
  const auto before = now - options_.keep_maps;
  stats_.maps_forgotten += std::erase_if(produced_, [&](const auto& kv) { return kv.second.since < before; });
  stats_.maps_forgotten += std::erase_if(received_, [&](const auto& kv) { return kv.second.since < before; });
  std::erase_if(fetched_, [&](const auto& kv) { return kv.second.since < before; });
}

std::map<std::uint32_t, SlotReady> SlotExecutor::slots() const {
  std::map<std::uint32_t, SlotReady> out;
  for (const auto& [index, s] : slots_)
    if (s.process && s.announced) out.emplace(index, s.process->ready());
  return out;
}

}  // namespace servescope::engine::gpuexec
