// The seam between a data plane and the world it runs in (docs/architecture.md, "The data-plane
// seam"). A data plane sees time only through a Clock, sends work only through an Executor and
// reports drops only through an OutcomeSink. The simulator implements all three with virtual
// time and simulated GPUs; the live scheduler implements them with the wall clock and remote
// workers. The same data-plane object runs unchanged in both.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "engine/dataplane/request.h"
#include "model/core/error.h"
#include "model/profile/gpu_share.h"

namespace servescope::engine {

using TimerId = std::uint32_t;

class Clock {
 public:
  virtual ~Clock() = default;
  virtual Time now() const = 0;
  // A timer slot that calls DataPlane::on_timer(token) when it fires. Each slot holds at most
  // one pending firing: arming an armed slot moves it. Timers that fire at the same instant
  // fire in the order they were armed.
  virtual TimerId create_timer(std::uint64_t token) = 0;
  virtual void arm(TimerId timer, Time at) = 0;
  virtual void disarm(TimerId timer) = 0;
};

class Executor {
 public:
  virtual ~Executor() = default;
  // Runs the batch on its GPU, in dispatch order after the GPU's earlier batches. The data
  // plane hears back through DataPlane::on_batch_done.
  virtual void execute(Batch batch) = 0;
  // Stops a batch that is running or waiting on `gpu` (Shepherd's preemption): its work is
  // wasted and no on_batch_done follows. False when the batch is no longer there.
  virtual bool preempt(BatchId batch, std::uint32_t gpu) = 0;
  // Moves data between two GPUs' servers over their NICs; DataPlane::on_transfer_done follows.
  virtual void transfer(Transfer transfer) = 0;
  // Re-splits `gpu` (an MPS process) to `share`: batches that start from now on run at that share
  // (gpu-let's reorganisation, seed 003 §4.6). Executors that cannot re-split refuse.
  virtual void reconfigure(std::uint32_t gpu, GpuShare share) {
    throw QueryError("this executor cannot re-split GPU " + std::to_string(gpu) + " to " + share.to_string());
  }
};

class OutcomeSink {
 public:
  virtual ~OutcomeSink() = default;
  virtual void dropped(const Request& request, DropReason reason) = 0;
  // A request that completes when the data plane says so rather than with one batch (an
  // application request, once its last sink module finished at `end`).
  virtual void completed(const Request& request, Time start, Time end) = 0;
};

struct DataPlaneContext {
  Clock& clock;
  Executor& executor;
  OutcomeSink& outcomes;
};

// One GPU (or vGPU) a data plane may dispatch to.
struct GpuSlot {
  std::uint32_t index = 0;  // position in the data plane's list
  std::string name;         // "a100-3/gpu1"
  std::string gpu_type;     // catalog id
  GpuShare share = GpuShare::whole();
  std::uint32_t server = 0;
};

class DataPlane {
 public:
  virtual ~DataPlane() = default;
  virtual std::string name() const = 0;
  // Called once before the first event; the context outlives the data plane's use of it.
  virtual void start(DataPlaneContext& context) = 0;
  virtual void on_request(const Request& request) = 0;
  virtual void on_timer(std::uint64_t token) = 0;
  virtual void on_batch_done(const BatchDone& done) = 0;
  // Only data planes that move data between GPUs (pipelines) need this.
  virtual void on_transfer_done(const TransferDone&) {}
  // Live mode: `gpu`'s worker died or stopped answering (false), or joined again (true). Data
  // planes that choose a GPU per batch (Symphony's, PPipe's pools) stop choosing it while it is
  // gone; the others keep their routes, and the live scheduler drops with a reason what they
  // send to a gone GPU.
  virtual void set_gpu_available(std::uint32_t /*gpu*/, bool /*available*/) {}
  // Live mode: `gpu`'s worker is gone (its connection closed), not merely late, after
  // set_gpu_available(gpu, false): work the plane still holds for it would be sent to nobody. A
  // plane that reserved later stages there (PPipe's) ends those requests now.
  virtual void on_gpu_lost(std::uint32_t /*gpu*/) {}
};

}  // namespace servescope::engine
