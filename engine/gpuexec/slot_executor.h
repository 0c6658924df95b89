// The worker's executor for a GPU (README "GPU execution"; `live worker --executor cuda`): one
// slot process per vGPU slot (slot_process.h), each an MPS client at its slot's share, running
// every batch as calibrated real work and reporting the time its device measured.
//
// Orders wait here, per slot, until their start delay has passed and the slot is free, then go
// to the slot one at a time, as on the emulated executor. wake_fd() is an epoll descriptor over
// every slot's pipe, so the worker's poll wakes the moment a batch finishes. Nothing waits for a
// slot to calibrate (a second or more on a GPU): the worker goes on answering its scheduler, and
// the slot's orders wait here until it is ready.
//
// Feature maps, where a profile gives their sizes: a stage's output comes device → host as the
// batch ends (it reports with it) and waits here for its send, or for the next stage on another
// slot of this worker; a received map waits here until the batch that needs it, which copies it
// host → device before it runs.
#pragma once

#include <chrono>
#include <cstdint>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <tuple>
#include <vector>

#include "engine/gpuexec/slot_process.h"
#include "engine/live/worker_executor.h"
#include "model/profile/model_profile.h"

namespace servescope::engine::gpuexec {

struct SlotExecutorOptions {
  // The command of the process for `slot` at `share` of the device (0, 1].
  std::function<SlotCommand(std::uint32_t slot, double share)> slot_command;
  double compute_fraction = 0.7;  // of each batch's time that runs as GEMMs
  // The models' profiles, for the sizes of their feature maps at each cut; without them maps
  // are the profiled size's pattern, sent from the host.
  std::optional<ProfileSet> profiles;
  std::chrono::milliseconds ready_within{std::chrono::minutes(2)};
  std::chrono::seconds keep_maps{30};  // a map nobody took by then belonged to a dropped request
  std::function<void(const std::string&)> log;
};

struct SlotExecutorStats {
  std::uint64_t batches = 0;
  std::int64_t copy_ns = 0;        // feature maps' copies, host → device and device → host
  std::uint64_t maps_fetched = 0;  // batch outputs copied device → host
  std::uint64_t maps_uploaded = 0, maps_forgotten = 0;
  std::uint64_t slots_started = 0;
};

class SlotExecutor final : public live::WorkerExecutor {
 public:
  explicit SlotExecutor(SlotExecutorOptions options);
  ~SlotExecutor() override;

  void assign(const live::WorkerAssignment& assignment) override;
  void submit(const live::RunOrder& order, live::SteadyClock::time_point at) override;
  std::vector<live::RunReport> finished(live::SteadyClock::time_point now) override;
  std::optional<live::SteadyClock::time_point> next_event() const override;
  void clear() override;
  std::size_t queued() const override;
  int wake_fd() const override { return epoll_; }

  bool real_feature_maps() const override { return options_.profiles.has_value(); }
  std::vector<std::uint8_t> feature_map(const live::SendOrder& order) override;
  std::optional<std::uint64_t> feature_map_bytes(std::uint32_t model, std::uint32_t boundary,
                                                 std::size_t samples) const override;
  void received_feature_map(std::uint32_t model, std::uint32_t boundary, const std::vector<std::uint64_t>& requests,
                            std::vector<std::uint8_t> bytes) override;

  const SlotExecutorStats& stats() const { return stats_; }
  // Waits until every slot process has calibrated (a tool's start; the worker never waits).
  void wait_ready();
  // What each ready slot process said (its device and calibration lines).
  std::map<std::uint32_t, SlotReady> slots() const;

 private:
  struct Pending {
    live::RunOrder order;
    live::SteadyClock::time_point not_before;
  };
  struct Slot {
    double share = 1;
    std::unique_ptr<SlotProcess> process;
    std::deque<Pending> queue;
    std::optional<live::RunOrder> running;  // sent to the process, not yet done
    bool abandoned = false;                 // clear() gave the running one up
    bool announced = false;                 // calibrated, and its readiness logged
  };
  // A stage's output sample: which batch of which slot made it (its bytes come with the report).
  struct Produced {
    std::uint32_t slot = 0;
    std::uint64_t batch = 0;
    std::size_t index = 0;  // in the batch
    std::uint64_t sample_bytes = 0;
    live::SteadyClock::time_point since;
  };
  struct Received {
    std::vector<std::uint8_t> bytes;
    live::SteadyClock::time_point since;
  };
  using SampleKey = std::tuple<std::uint32_t, std::uint32_t, std::uint64_t>;  // model, boundary, request

  Slot& slot(std::uint32_t index);
  void start(Slot& s, std::uint32_t index, live::SteadyClock::time_point now);
  bool ready(Slot& s, std::uint32_t index);  // calibrated; logs it the first time
  const ModelProfile* profile_of(std::uint32_t model) const;
  std::vector<std::uint8_t> sample(const SampleKey& key);
  void forget_old(live::SteadyClock::time_point now);

  SlotExecutorOptions options_;
  std::vector<std::string> models_;
  std::map<std::uint32_t, Slot> slots_;
  std::map<SampleKey, Produced> produced_;
  std::map<SampleKey, Received> received_;
  // A finished batch's output on the host, until each of its samples has been taken.
  struct Output {
    std::vector<std::uint8_t> bytes;
    std::size_t samples_left = 0;
    live::SteadyClock::time_point since;
  };
  std::map<std::pair<std::uint32_t, std::uint64_t>, Output> fetched_;  // by (slot, batch)
  live::SteadyClock::time_point last_forget_;
  int epoll_ = -1;
  SlotExecutorStats stats_;
};

}  // namespace servescope::engine::gpuexec
