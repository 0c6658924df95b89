#include "engine/dataplane/partitioned_data_plane.h"

#include <stdexcept>

namespace servescope::engine {

// What one part sees as its world. Ids it makes (batches, transfers) are spread over the
// parts as local·P + part, so they stay unique outside and decode by the GPU they name.
class PartitionedDataPlane::Host final : public Clock, public Executor, public OutcomeSink {
 public:
  Host(PartitionedDataPlane& owner, std::uint32_t part) : owner_(owner), part_(part) {}

  Time now() const override { return owner_.outer_->clock.now(); }
  TimerId create_timer(std::uint64_t token) override {
    owner_.timers_.push_back({part_, token});
    return owner_.outer_->clock.create_timer(owner_.timers_.size() - 1);
  }
  void arm(TimerId timer, Time at) override { owner_.outer_->clock.arm(timer, at); }
  void disarm(TimerId timer) override { owner_.outer_->clock.disarm(timer); }

  void execute(Batch batch) override {
    const auto& p = owner_.parts_[part_];
    batch.id = global_id(batch.id);
    batch.gpu = p.gpus[batch.gpu];
    batch.model = p.models[batch.model];
    for (auto& r : batch.requests)
      r.model = p.models[r.model];
    owner_.outer_->executor.execute(std::move(batch));
  }
  bool preempt(BatchId batch, std::uint32_t gpu) override {
    return owner_.outer_->executor.preempt(global_id(batch), owner_.parts_[part_].gpus[gpu]);
  }
  void reconfigure(std::uint32_t gpu, GpuShare share) override {
    owner_.outer_->executor.reconfigure(owner_.parts_[part_].gpus[gpu], share);
  }
  void transfer(Transfer t) override {
    const auto& p = owner_.parts_[part_];
    t.id = global_id(t.id);
    t.batch = global_id(t.batch);
    t.from_gpu = p.gpus[t.from_gpu];
    t.to_gpu = p.gpus[t.to_gpu];
    for (auto& r : t.requests)
      r.model = p.models[r.model];
    owner_.outer_->executor.transfer(std::move(t));
  }
  void dropped(const Request& request, DropReason reason) override {
    Request r = request;
    r.model = owner_.parts_[part_].models[r.model];
    owner_.outer_->outcomes.dropped(r, reason);
  }
  void completed(const Request& request, Time start, Time end) override {
    Request r = request;
    r.model = owner_.parts_[part_].models[r.model];
    owner_.outer_->outcomes.completed(r, start, end);
  }

 private:
  std::uint64_t global_id(std::uint64_t local) const { return local * owner_.parts_.size() + part_; }

  PartitionedDataPlane& owner_;
  std::uint32_t part_;
};

PartitionedDataPlane::PartitionedDataPlane(std::vector<DataPlanePart> parts, std::size_t model_count,
                                           std::size_t gpu_count)
    : parts_(std::move(parts)),
      model_part_(model_count, kNone),
      model_local_(model_count, kNone),
      gpu_part_(gpu_count, kNone),
      gpu_local_(gpu_count, kNone) {
  for (std::uint32_t p = 0; p < parts_.size(); ++p) {
    if (!parts_[p].plane) throw std::invalid_argument("PartitionedDataPlane: part without a data plane");
    for (std::uint32_t i = 0; i < parts_[p].models.size(); ++i) {
      const auto m = parts_[p].models[i];
      if (m >= model_count || model_part_[m] != kNone)
        throw std::invalid_argument("PartitionedDataPlane: a model is out of range or in two parts");
      model_part_[m] = p;
      model_local_[m] = i;
    }
    for (std::uint32_t i = 0; i < parts_[p].gpus.size(); ++i) {
      const auto g = parts_[p].gpus[i];
      if (g >= gpu_count || gpu_part_[g] != kNone)
        throw std::invalid_argument("PartitionedDataPlane: a GPU is out of range or in two parts");
      gpu_part_[g] = p;
      gpu_local_[g] = i;
    }
  }
}

PartitionedDataPlane::~PartitionedDataPlane() = default;

std::string PartitionedDataPlane::name() const {
  return parts_.empty() ? "sub-clusters"
                        : parts_.front().plane->name() + " in " + std::to_string(parts_.size()) + " sub-clusters";
}

void PartitionedDataPlane::start(DataPlaneContext& context) {
  outer_ = &context;
  for (std::uint32_t p = 0; p < parts_.size(); ++p) {
    hosts_.push_back(std::make_unique<Host>(*this, p));
    auto& h = *hosts_.back();
    contexts_.push_back(std::make_unique<DataPlaneContext>(DataPlaneContext{h, h, h}));
  }
  for (std::uint32_t p = 0; p < parts_.size(); ++p)
    parts_[p].plane->start(*contexts_[p]);
}

void PartitionedDataPlane::on_request(const Request& request) {
  const auto p = model_part_[request.model];
  if (p == kNone) {
    outer_->outcomes.dropped(request, DropReason::NoCapacity);
    return;
  }
  Request local = request;
  local.model = model_local_[request.model];
  parts_[p].plane->on_request(local);
}

void PartitionedDataPlane::on_timer(std::uint64_t token) {
  const auto& owner = timers_[token];
  parts_[owner.part].plane->on_timer(owner.token);
}

void PartitionedDataPlane::set_gpu_available(std::uint32_t gpu, bool available) {
  if (gpu < gpu_part_.size()) parts_[gpu_part_[gpu]].plane->set_gpu_available(gpu_local_[gpu], available);
}

void PartitionedDataPlane::on_gpu_lost(std::uint32_t gpu) {
  if (gpu < gpu_part_.size()) parts_[gpu_part_[gpu]].plane->on_gpu_lost(gpu_local_[gpu]);
}

void PartitionedDataPlane::on_batch_done(const BatchDone& done) {
  const auto p = gpu_part_[done.gpu];
  BatchDone local = done;
  local.id = done.id / parts_.size();
  local.gpu = gpu_local_[done.gpu];
  local.model = model_local_[done.model];
  parts_[p].plane->on_batch_done(local);
}

void PartitionedDataPlane::on_transfer_done(const TransferDone& done) {
  const auto p = gpu_part_[done.from_gpu];
  TransferDone local = done;
  local.id = done.id / parts_.size();
  local.batch = done.batch / parts_.size();
  local.from_gpu = gpu_local_[done.from_gpu];
  local.to_gpu = gpu_local_[done.to_gpu];
  parts_[p].plane->on_transfer_done(local);
}

}  // namespace servescope::engine
