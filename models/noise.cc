#include "models/noise.h"

#include <fmt/format.h>

#include <cmath>

#include "core/error.h"

namespace tg::models {

void check_noise(const NoiseOptions& o) {
  auto prob = [](const char* name, double p) {
    if (!(p >= 0 && p < 1)) throw Error(fmt::format("objective: {} must be in [0, 1) (got {})", name, p));
  };
  prob("input_dropout", o.input_dropout);
  prob("output_dropout", o.output_dropout);
  if (!(o.weight_noise >= 0 && std::isfinite(o.weight_noise)))
    throw Error(fmt::format("objective: weight_noise must be >= 0 (got {})", o.weight_noise));
}

namespace {
// A uniform double in [0, 1) from the top 53 bits: written out rather than
// std::uniform_real_distribution, whose output is not specified across standard libraries.
double uniform01(Rng& rng) { return static_cast<double>(rng() >> 11) * 0x1.0p-53; }

// T masks of B·width factors: 0 with probability p, else 1/(1-p).
std::vector<Tensor> keep_masks(int64_t T, int64_t B, int64_t width, double p, Rng& rng) {
  std::vector<Tensor> out;
  const double kept = 1.0 / (1.0 - p);
  for (int64_t t = 0; t < T; ++t) {
    std::vector<double> v(static_cast<size_t>(B * width));
    for (double& x : v) x = uniform01(rng) < p ? 0.0 : kept;
    out.push_back(width == 1 ? Tensor::from({B}, v, DType::f64) : Tensor::from({B, width}, v, DType::f64));
  }
  return out;
}
}  // namespace

void draw_noise(tasks::Batch& b, const NoiseOptions& o, const Model& m, Rng& rng) {
  if (!o.any()) return;
  if ((o.input_dropout > 0 || o.output_dropout > 0) && !m.supports_dropout())
    throw Error(fmt::format("objective: model '{}' does not support input_dropout / output_dropout", m.kind()));
  models::Sequence& xs = b.inputs;
  if (o.input_dropout > 0)
    xs.input_keep = keep_masks(xs.T, xs.B, m.io().symbolic() ? 1 : m.io().in, o.input_dropout, rng);
  if (o.output_dropout > 0) xs.readout_keep = keep_masks(xs.T, xs.B, m.dropout_units(), o.output_dropout, rng);
  if (o.weight_noise > 0) {
    const ParamSet& ps = m.params();
    ParamVec eps = ParamVec::random_normal(ps.values().layout(), ps.dtype(), rng);
    b.weight_noise = std::make_shared<const ParamVec>(eps.scale(o.weight_noise));
  }
}

}  // namespace tg::models
