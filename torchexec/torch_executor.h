// The live worker's executor on real compute (README "Real models", Torch workers): each batch runs
// its block range of a model exported into blocks, on real tensors, on a thread per vGPU slot (a
// FIFO per slot, as on an MPS process; on CPU a slot's share of the device is its number of
// intra-op threads, as the profiler measured it; on a GPU a slot is a CUDA stream of its own, and
// the GPU is not partitioned). A first stage synthesises each request's input
// from its id; later stages take the samples an earlier stage left in the worker's FeatureStore,
// locally or from a feature map another worker sent. Sampled requests' final outputs are checked
// against the whole model run on the same input: a mismatch stops the worker (ExecutorFailure),
// since the computation it times would be wrong.
#pragma once

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "engine/live/worker_executor.h"
#include "torchexec/feature_store.h"
#include "torchexec/torch_model.h"

namespace servescope::torchexec {

struct TorchExecutorOptions {
  // One request in `check_every` (by id) has its final output checked; 0 checks none.
  std::uint64_t check_every = 100;
  // A checked output may differ from the whole model's by this much relative to the largest
  // output value (batched kernels sum in another order than a batch of one).
  double tolerance = 1e-4;
  // A sample no stage took this long after it was made belongs to a dropped request.
  std::chrono::seconds keep_features{30};
  int hardware_threads = 0;  // 0: this machine's
  std::function<void(const std::string&)> log;
};

struct TorchExecutorStats {
  std::uint64_t batches = 0, samples = 0;
  std::uint64_t checked = 0;    // outputs compared with the whole model
  double max_difference = 0;    // the largest relative difference among them
  std::uint64_t forgotten = 0;  // samples dropped from the store unused
};

class TorchExecutor final : public engine::live::WorkerExecutor {
 public:
  // `models` by their manifest names; the scheduler's orders name models by the run's index,
  // which assign() maps to them.
  TorchExecutor(std::vector<std::shared_ptr<const TorchModel>> models, TorchExecutorOptions options = {});
  ~TorchExecutor() override;

  void assign(const engine::live::WorkerAssignment& assignment) override;
  void submit(const engine::live::RunOrder& order, engine::live::SteadyClock::time_point at) override;
  std::vector<engine::live::RunReport> finished(engine::live::SteadyClock::time_point now) override;
  std::optional<engine::live::SteadyClock::time_point> next_event() const override { return std::nullopt; }
  void clear() override;
  std::size_t queued() const override;
  int wake_fd() const override { return wake_fd_; }

  bool real_feature_maps() const override { return true; }
  std::vector<std::uint8_t> feature_map(const engine::live::SendOrder& order) override;
  std::optional<std::uint64_t> feature_map_bytes(std::uint32_t model, std::uint32_t boundary,
                                                 std::size_t samples) const override;
  void received_feature_map(std::uint32_t model, std::uint32_t boundary, const std::vector<std::uint64_t>& requests,
                            std::vector<std::uint8_t> bytes) override;

  TorchExecutorStats stats() const;
  // Waits until every output sampled so far has been checked: the checks run on a thread of their
  // own and lag behind a loaded worker, and a closing summary that counted before they ended
  // said fewer outputs were checked than were served.
  void finish_checks();

 private:
  struct Job {
    engine::live::RunOrder order;
    engine::live::SteadyClock::time_point not_before;
    std::uint64_t generation = 0;
    const TorchModel* model = nullptr;
    std::uint32_t begin = 0, end = 0;
  };
  struct Check {
    const TorchModel* model = nullptr;
    std::uint64_t request = 0;
    Tensor output;
  };
  struct Slot {
    std::deque<Job> queue;
    bool running = false;
    int threads = 1;
    std::thread thread;
  };

  const TorchModel* model_at(std::uint32_t index) const;  // nullptr: this worker has no folder for it
  int threads_of(std::uint32_t slot) const;
  void serve_slot(std::uint32_t slot);
  void run_job(Job& job, int threads);
  void serve_checks();
  void fail(std::string why);
  void wake() const;

  std::map<std::string, std::shared_ptr<const TorchModel>> by_name_;
  TorchExecutorOptions options_;
  int wake_fd_ = -1;
  FeatureStore store_;
  ComputeDevice device_ = ComputeDevice::Cpu;  // the models'; on CUDA each slot has a stream of its own

  mutable std::mutex mutex_;  // everything below
  std::condition_variable changed_;
  bool stopping_ = false;
  std::uint64_t generation_ = 0;           // clear() starts a new one; older work is discarded
  std::vector<const TorchModel*> models_;  // by the run's model index
  std::vector<std::string> model_names_;
  std::map<std::uint32_t, double> slot_share_;
  std::map<std::uint32_t, std::unique_ptr<Slot>> slots_;
  std::vector<engine::live::RunReport> done_;
  std::deque<Check> checks_;
  bool checking_ = false;  // a check taken from checks_ is running
  std::string failure_;
  TorchExecutorStats stats_;
  engine::live::SteadyClock::time_point last_sweep_{};
  std::thread checker_;
};

}  // namespace servescope::torchexec
