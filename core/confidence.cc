#include "core/confidence.h"

#include <cmath>
#include <limits>

namespace tg {

namespace {
constexpr double kZ = 1.959963984540054;  // the standard normal's 97.5% quantile
constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
}  // namespace

Interval wilson_interval(double rate, int64_t n) {
  if (n <= 0 || !(rate >= 0 && rate <= 1)) return {kNaN, kNaN};
  const double N = static_cast<double>(n), z2 = kZ * kZ;
  const double centre = (rate + z2 / (2 * N)) / (1 + z2 / N);
  const double half = kZ / (1 + z2 / N) * std::sqrt(rate * (1 - rate) / N + z2 / (4 * N * N));
  return {std::max(0.0, centre - half), std::min(1.0, centre + half)};
}

Interval batch_means_interval(const std::vector<double>& chunk_means, const std::vector<double>& chunk_weights) {
  const size_t k = chunk_means.size();
  if (k < 2 || chunk_weights.size() != k) return {kNaN, kNaN};
  double w = 0, mean = 0;
  for (size_t i = 0; i < k; ++i) w += chunk_weights[i], mean += chunk_weights[i] * chunk_means[i];
  if (!(w > 0)) return {kNaN, kNaN};
  mean /= w;
  // A chunk of w cases has a mean with variance σ²/w, so E[Σ w_i (x_i - mean)²] ≈ (k - 1) σ², and the
  // weighted mean's variance is σ² / Σ w_i.
  double ss = 0;
  for (size_t i = 0; i < k; ++i) ss += chunk_weights[i] * (chunk_means[i] - mean) * (chunk_means[i] - mean);
  const double var_of_mean = ss / static_cast<double>(k - 1) / w;
  const double half = kZ * std::sqrt(var_of_mean);
  return {mean - half, mean + half};
}

}  // namespace tg
