// Symphony's sub-clusters (seed 002 §4.4, digest §2.9): the models are split into disjoint
// sets and the GPUs into groups, and each group runs its own data plane over its own models,
// with no communication between them. This composes any data plane that way: each part sees
// local model and GPU indices 0..n-1 through its own Clock/Executor/OutcomeSink adapter, and
// everything it sends out is translated back (models, GPUs, batch and transfer ids).
#pragma once

#include <memory>
#include <vector>

#include "engine/dataplane/data_plane.h"

namespace servescope::engine {

struct DataPlanePart {
  std::vector<std::uint32_t> models;  // global model index of each local model
  std::vector<std::uint32_t> gpus;    // global GPU index of each local GPU
  std::unique_ptr<DataPlane> plane;
};

class PartitionedDataPlane final : public DataPlane {
 public:
  // Every model and GPU in 0..model_count-1 / 0..gpu_count-1 must belong to at most one part;
  // requests for a model in no part are dropped as NoCapacity.
  PartitionedDataPlane(std::vector<DataPlanePart> parts, std::size_t model_count, std::size_t gpu_count);
  ~PartitionedDataPlane() override;

  std::string name() const override;
  void start(DataPlaneContext& context) override;
  void on_request(const Request& request) override;
  void on_timer(std::uint64_t token) override;
  void on_batch_done(const BatchDone& done) override;
  void set_gpu_available(std::uint32_t gpu, bool available) override;
  void on_gpu_lost(std::uint32_t gpu) override;
  void on_transfer_done(const TransferDone& done) override;

  std::size_t part_count() const { return parts_.size(); }
  const DataPlanePart& part(std::size_t i) const { return parts_[i]; }

 private:
  class Host;
  static constexpr std::uint32_t kNone = ~0u;

  std::vector<DataPlanePart> parts_;
  std::vector<std::uint32_t> model_part_, model_local_, gpu_part_, gpu_local_;
  std::vector<std::unique_ptr<Host>> hosts_;
  std::vector<std::unique_ptr<DataPlaneContext>> contexts_;
  DataPlaneContext* outer_ = nullptr;
  struct TimerOwner {
    std::uint32_t part;
    std::uint64_t token;
  };
  std::vector<TimerOwner> timers_;
};

}  // namespace servescope::engine
