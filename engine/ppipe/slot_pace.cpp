#include "engine/ppipe/slot_pace.h"

#include <algorithm>
#include <cmath>

namespace servescope::engine {

double SlotPace::factor(std::uint32_t slot, int batch) const {
  if (slot >= slots_.size() || batch < 0 || static_cast<std::size_t>(batch) >= slots_[slot].size()) return 1.0;
  return slots_[slot][static_cast<std::size_t>(batch)].factor;
}

void SlotPace::observe(std::uint32_t slot, int batch, Duration profiled, Duration real) {
  // A batch whose requests had all ended before it ran reports no time at all: not a pace.
  if (slot >= slots_.size() || batch < 1 || profiled <= Duration() || real <= Duration()) return;
  auto& entries = slots_[slot];
  if (static_cast<std::size_t>(batch) >= entries.size()) entries.resize(static_cast<std::size_t>(batch) + 1);
  auto& s = entries[static_cast<std::size_t>(batch)];
  s.ratios[static_cast<std::size_t>(s.next)] =
      static_cast<float>(static_cast<double>(real.count_ns()) / static_cast<double>(profiled.count_ns()));
  s.next = (s.next + 1) % kWindow;
  s.count = std::min(s.count + 1, kWindow);
  // A handful of batches is not yet a pace: one slow first batch (a cold cache) would otherwise
  // stretch every reservation after it.
  if (s.count < kSettle) return;
  std::array<float, kWindow> sorted{};
  std::copy_n(s.ratios.begin(), s.count, sorted.begin());
  const auto k = static_cast<std::ptrdiff_t>(std::ceil(kQuantile * s.count)) - 1;
  std::nth_element(sorted.begin(), sorted.begin() + k, sorted.begin() + s.count);
  s.factor = std::max(1.0, static_cast<double>(sorted[static_cast<std::size_t>(k)]));
}

Duration SlotPace::paced(std::uint32_t slot, int batch, Duration profiled) const {
  const double f = factor(slot, batch);
  if (f == 1.0) return profiled;
  return Duration::nanoseconds(static_cast<std::int64_t>(std::ceil(static_cast<double>(profiled.count_ns()) * f)));
}

}  // namespace servescope::engine
