// A model of a GPU's timing for the calibration, the slot loop and the slot executor's tests:
// GEMMs and streaming with launch costs, a stream that runs slower until it is long enough to
// fill the device, a 3 % ripple by size and optional noise, and per-run MPS-like slowdown
// (`scale`). Deterministic for a seed. It bends the lines enough that the calibration lines
// alone miss by more than 5 %, as a real device's do.
#pragma once

#include <chrono>
#include <cmath>
#include <cstdint>
#include <map>
#include <random>
#include <span>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "engine/gpuexec/slot_loop.h"

namespace servescope::test {

struct ModelGpuOptions {
  double launch_ns = 4'000;          // per kernel launch
  double gemm_ns = 9'000;            // per GEMM at full speed
  double stream_bytes_per_ns = 1.5;  // 1.5 TB/s once the stream fills the device
  double fill_bytes = 8e6;           // below about this, the stream is slower
  double noise = 0;                  // ± this fraction, uniform
  double scale = 1;                  // every run takes this much longer (a smaller share)
  bool sleep = false;                // hold the caller for the modelled time, as a GPU would
  std::uint64_t seed = 7;
};

class ModelGpu final : public engine::gpuexec::SlotDevice {
 public:
  explicit ModelGpu(ModelGpuOptions o = {}) : o_(o), rng_(o.seed) {}

  double model_ns(const engine::gpu::WorkRecipe& r) const {
    double t = 0;
    if (r.gemms > 0) {
      const auto k = static_cast<double>(r.gemms);
      t += o_.launch_ns + k * o_.gemm_ns * (1 + 0.03 * std::sin(k));
    }
    if (r.stream_bytes > 0) {
      const auto b = static_cast<double>(r.stream_bytes);
      t += o_.launch_ns + b / o_.stream_bytes_per_ns * (1 + o_.fill_bytes / (b + o_.fill_bytes));
    }
    return t * o_.scale;
  }
  std::int64_t run_ns(const engine::gpu::WorkRecipe& r) override {
    ++runs;
    double t = model_ns(r);
    if (o_.noise > 0) t *= 1 - o_.noise + 2 * o_.noise * std::uniform_real_distribution<double>(0, 1)(rng_);
    if (o_.sleep) std::this_thread::sleep_for(std::chrono::nanoseconds(std::llround(t)));
    return std::llround(t);
  }
  std::string describe() const override { return "model GPU"; }
  std::int64_t upload(std::span<const std::uint8_t> input) override {
    uploaded.insert(uploaded.end(), input.begin(), input.end());
    return static_cast<std::int64_t>(input.size());  // 1 byte per ns
  }
  std::int64_t download(std::uint64_t batch, std::span<std::uint8_t> into) override {
    for (std::size_t i = 0; i < into.size(); ++i)
      into[i] = pattern(batch, i);
    return static_cast<std::int64_t>(into.size());  // 1 byte per ns
  }
  double gemm_l2_bytes() const override { return 3.3e7; }
  double l2_bytes_per_ns() override { return 4 * o_.stream_bytes_per_ns / o_.scale; }
  static std::uint8_t pattern(std::uint64_t batch, std::size_t i) {
    return static_cast<std::uint8_t>((batch * 31 + i * 7) & 0xff);
  }

  int runs = 0;
  std::vector<std::uint8_t> uploaded;

 private:
  ModelGpuOptions o_;
  std::mt19937_64 rng_;
};

}  // namespace servescope::test
