// The slice of a GPU a model runs on: the whole GPU, an MPS vGPU of 1/v (PPipe, seed 000
// §2.4) or a glet of p percent of the SMs (gpu-let, seed 003 §1). Kept as a reduced fraction
// so "1/2" and "50%" are the same share and lookups compare exactly.
#pragma once

#include <compare>
#include <optional>
#include <string>
#include <string_view>

namespace servescope {

class GpuShare {
 public:
  constexpr GpuShare() = default;
  static constexpr GpuShare whole() { return GpuShare(1, 1); }
  static GpuShare mps(int divisor);      // 1/divisor, divisor 1..64
  static GpuShare percent(int percent);  // percent/100, 1..100
  // "1", "1/3", "40%", as written in profile files; nullopt when malformed.
  static std::optional<GpuShare> parse(std::string_view text);

  constexpr int numerator() const { return num_; }
  constexpr int denominator() const { return den_; }
  constexpr bool is_whole() const { return num_ == den_; }
  double fraction() const { return static_cast<double>(num_) / den_; }
  // The MPS divisor v when the share is 1/v, else nullopt.
  std::optional<int> mps_divisor() const;
  // "1", "1/3" or "40%": percentages where exact and not a unit fraction.
  std::string to_string() const;

  constexpr bool operator==(const GpuShare&) const = default;
  std::strong_ordering operator<=>(const GpuShare& o) const;

 private:
  constexpr GpuShare(int num, int den) : num_(num), den_(den) {}
  int num_ = 1;
  int den_ = 1;
};

}  // namespace servescope
