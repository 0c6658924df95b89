// A slot process on the model GPU (tests/support/model_gpu.h), for the slot executor's and
// measure-interference's tests: the real slot loop and protocol, no CUDA. Its MPS share comes
// from CUDA_MPS_ACTIVE_THREAD_PERCENTAGE as on a GPU (half the threads: twice as long).
// FAKE_SLOT_FAIL=MESSAGE makes the device fail from the first run on, as a CUDA error would;
// FAKE_SLOT_SLEEP=1 makes each run hold the slot for its modelled time, as a GPU's stream does.
#include <cstdlib>
#include <stdexcept>
#include <string>
#include <sys/prctl.h>

#include "engine/gpuexec/slot_loop.h"
#include "tests/support/model_gpu.h"

namespace {

class FailingGpu final : public servescope::engine::gpuexec::SlotDevice {
 public:
  explicit FailingGpu(std::string why) : why_(std::move(why)) {}
  std::int64_t run_ns(const servescope::engine::gpu::WorkRecipe&) override { throw std::runtime_error(why_); }
  std::string describe() const override { return "failing GPU"; }
  std::int64_t upload(std::span<const std::uint8_t>) override { return 0; }
  std::int64_t download(std::uint64_t, std::span<std::uint8_t>) override { return 0; }

 private:
  std::string why_;
};

}  // namespace

int main() {
  ::prctl(PR_SET_TIMERSLACK, 1000UL);  // as the live daemons: a sleep ends within a microsecond
  if (const char* why = std::getenv("FAKE_SLOT_FAIL")) {
    FailingGpu device(why);
    return servescope::engine::gpuexec::run_slot_loop(device, 0, 1);
  }
  servescope::test::ModelGpuOptions o;
  if (const char* share = std::getenv("CUDA_MPS_ACTIVE_THREAD_PERCENTAGE")) o.scale = 100.0 / std::atof(share);
  o.sleep = std::getenv("FAKE_SLOT_SLEEP") != nullptr;
  servescope::test::ModelGpu device(o);
  return servescope::engine::gpuexec::run_slot_loop(device, 0, 1);
}
