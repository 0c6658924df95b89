#include "model/profile/gpu_share.h"

#include <numeric>
#include <stdexcept>

#include "model/core/text.h"

namespace servescope {

GpuShare GpuShare::mps(int divisor) {
  if (divisor < 1 || divisor > 64) throw std::invalid_argument("MPS divisor must be 1..64");
  return GpuShare(1, divisor);
}

GpuShare GpuShare::percent(int percent) {
  if (percent < 1 || percent > 100) throw std::invalid_argument("GPU percentage must be 1..100");
  const int g = std::gcd(percent, 100);
  return GpuShare(percent / g, 100 / g);
}

std::optional<GpuShare> GpuShare::parse(std::string_view text) {
  text = trim(text);
  if (!text.empty() && text.back() == '%') {
    const auto p = parse_integer(text.substr(0, text.size() - 1));
    if (!p || *p < 1 || *p > 100) return std::nullopt;
    return percent(static_cast<int>(*p));
  }
  const auto slash = text.find('/');
  const auto num = parse_integer(text.substr(0, slash));
  if (!num) return std::nullopt;
  if (slash == std::string_view::npos) {
    if (*num != 1) return std::nullopt;
    return whole();
  }
  const auto den = parse_integer(text.substr(slash + 1));
  if (!den || *num < 1 || *den < 1 || *den > 100 || *num > *den) return std::nullopt;
  const int g = std::gcd(static_cast<int>(*num), static_cast<int>(*den));
  return GpuShare(static_cast<int>(*num) / g, static_cast<int>(*den) / g);
}

std::optional<int> GpuShare::mps_divisor() const {
  if (num_ == 1) return den_;
  return std::nullopt;
}

std::string GpuShare::to_string() const {
  if (is_whole()) return "1";
  if (num_ == 1) return "1/" + std::to_string(den_);
  if (100 % den_ == 0) return std::to_string(num_ * (100 / den_)) + "%";
  return std::to_string(num_) + "/" + std::to_string(den_);
}

std::strong_ordering GpuShare::operator<=>(const GpuShare& o) const {
  return static_cast<long long>(num_) * o.den_ <=> static_cast<long long>(o.num_) * den_;
}

}  // namespace servescope
