// How much slower than profiled each vGPU really runs, learned from the batches it reports: an
// extension of the reservation data plane's feedback (seed 000 §5.2; digest §4.6). Feedback
// corrects the table for a batch that overran, but the next batch would still be reserved at
// the profile's time; on a device whose slots slow each other (contention), or one with a
// profile measured on a quieter machine, every batch then overruns and a plane dispatching as
// late as it can makes each one late. The pace is the upper quartile of the recent ratios of real
// to profiled time, never below 1: the profile stays the floor of what is reserved, so exact
// runtimes (every ratio 1) leave the paper's behaviour unchanged. It is kept per batch size:
// slots slow each other far more at small batches (×2.3 at batch 1 against ×1.1 at batch 8 for
// two CPU slots of resnet18), and one pace per slot taught by its small batches stretched its
// full ones until the plane could only send small batches. The upper quartile, not the median:
// a slot's batches run at two paces, alone and beside a busy sibling, and the median of a slot
// alone half the time left every contended batch late; p90 reserved so long under random ±20 %
// jitter that more requests were dropped than the late ones it saved.
#pragma once

#include <array>
#include <cstdint>
#include <vector>

#include "model/core/time.h"

namespace servescope::engine {

class SlotPace {
 public:
  static constexpr int kWindow = 32;  // batches remembered per slot
  static constexpr double kQuantile = 0.75;
  static constexpr int kSettle = 10;  // ratios before the first pace: one slow first batch is not it

  explicit SlotPace(std::size_t slots = 0) : slots_(slots) {}

  // A batch of `batch` on `slot` took `real` where its profile said `profiled`.
  void observe(std::uint32_t slot, int batch, Duration profiled, Duration real);
  // The factor to scale `slot`'s profiled times at `batch` by, ≥ 1 (1 until kSettle are seen).
  double factor(std::uint32_t slot, int batch) const;
  // `profiled` at that pace, rounded up to whole nanoseconds.
  Duration paced(std::uint32_t slot, int batch, Duration profiled) const;

 private:
  struct Entry {
    std::array<float, kWindow> ratios{};
    int count = 0;  // ratios seen, capped at kWindow
    int next = 0;   // where the next one goes
    double factor = 1.0;
  };
  std::vector<std::vector<Entry>> slots_;  // [slot][batch]
};

}  // namespace servescope::engine
