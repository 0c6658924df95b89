#include "engine/glet/interference_fit.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <random>

#include "engine/glet/glet_latency.h"
#include "model/core/error.h"

namespace servescope::engine {
namespace {

using Row = std::array<double, 5>;

Row features(const InterferenceSample& s) {
  return {s.l2_self, s.l2_other, s.dram_self, s.dram_other, 1.0};
}

double predict(const Row& c, const InterferenceSample& s) {
  const auto x = features(s);
  double y = 0;
  for (std::size_t i = 0; i < 5; ++i)
    y += c[i] * x[i];
  return y;
}

// Solves the 5×5 normal equations XᵀX c = Xᵀy by Gaussian elimination with partial pivoting.
// Five unknowns do not justify a linear-algebra dependency; the features are fractions in
// [0, 1], so the system is well scaled whenever it is not singular.
Row least_squares(const std::vector<InterferenceSample>& rows) {
  std::array<std::array<double, 6>, 5> a{};
  for (const auto& s : rows) {
    const auto x = features(s);
    for (std::size_t i = 0; i < 5; ++i) {
      for (std::size_t j = 0; j < 5; ++j)
        a[i][j] += x[i] * x[j];
      a[i][5] += x[i] * s.slowdown;
    }
  }
  double scale = 0;
  for (std::size_t i = 0; i < 5; ++i)
    scale = std::max(scale, std::abs(a[i][i]));
  for (std::size_t col = 0; col < 5; ++col) {
    std::size_t pivot = col;
    for (std::size_t r = col + 1; r < 5; ++r)
      if (std::abs(a[r][col]) > std::abs(a[pivot][col])) pivot = r;
    if (std::abs(a[pivot][col]) <= 1e-12 * std::max(scale, 1.0))
      throw QueryError(
          "the co-run samples cannot tell the five interference coefficients apart (their features are "
          "linearly dependent); measure more varied model pairs");
    std::swap(a[col], a[pivot]);
    for (std::size_t r = 0; r < 5; ++r) {
      if (r == col) continue;
      const double f = a[r][col] / a[col][col];
      for (std::size_t k = col; k < 6; ++k)
        a[r][k] -= f * a[col][k];
    }
  }
  Row c{};
  for (std::size_t i = 0; i < 5; ++i)
    c[i] = a[i][5] / a[i][i];
  return c;
}

}  // namespace

double InterferenceFit::error_quantile(double q) const {
  if (validation_errors.empty()) return 0;
  const auto i = static_cast<std::size_t>(std::clamp(std::ceil(q * static_cast<double>(validation_errors.size())) - 1,
                                                     0.0, static_cast<double>(validation_errors.size() - 1)));
  return validation_errors[i];
}

InterferenceFit fit_interference(std::vector<InterferenceSample> samples, const std::string& gpu, double train_fraction,
                                 std::uint64_t seed) {
  if (!(train_fraction > 0 && train_fraction <= 1)) throw QueryError("the training fraction must be in (0, 1]");
  for (std::size_t i = 0; i < samples.size(); ++i)
    if (!(samples[i].slowdown > 0))
      throw QueryError("co-run sample " + std::to_string(i + 1) + ": the slowdown must be positive");
  // Fisher–Yates by hand: std::shuffle's draws differ between standard libraries.
  std::mt19937_64 rng(seed);
  for (std::size_t i = samples.size(); i > 1; --i)
    std::swap(samples[i - 1], samples[static_cast<std::size_t>(rng() % i)]);
  const auto train = static_cast<std::size_t>(std::llround(train_fraction * static_cast<double>(samples.size())));
  if (train < 5)
    throw QueryError("fitting five coefficients needs at least 5 training samples (got " + std::to_string(train) + ")");
  const std::vector<InterferenceSample> training(samples.begin(), samples.begin() + static_cast<std::ptrdiff_t>(train));
  const auto c = least_squares(training);
  InterferenceFit fit;
  fit.model = {gpu, c[0], c[1], c[2], c[3], c[4], "least squares over " + std::to_string(train) + " co-runs", ""};
  fit.train = train;
  fit.validation = samples.size() - train;
  for (std::size_t i = train; i < samples.size(); ++i)
    fit.validation_errors.push_back(std::abs(predict(c, samples[i]) - samples[i].slowdown) / samples[i].slowdown);
  std::ranges::sort(fit.validation_errors);
  double sum = 0;
  for (const double e : fit.validation_errors)
    sum += e;
  fit.mean_validation_error =
      fit.validation_errors.empty() ? 0 : sum / static_cast<double>(fit.validation_errors.size());
  return fit;
}

InterferenceSample corun_sample(const UtilisationProfile& self, int batch, double share,
                                const UtilisationProfile& other, int other_batch, double other_share, double solo,
                                double corun) {
  const auto s = utilisation_at(&self, batch), o = utilisation_at(&other, other_batch);
  return {s.l2 * share, o.l2 * other_share, s.dram * share, o.dram * other_share, corun / solo};
}

}  // namespace servescope::engine
