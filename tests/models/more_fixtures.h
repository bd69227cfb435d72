// Test fixtures for the part-B models: tiny configurations, randomised parameters, small batches with
// padding, and the matching loss over them.
#pragma once
#include <cmath>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/params.h"
#include "models/loss.h"
#include "models/model.h"
#include "ops/ops.h"

namespace tg::testing_more {

using json = nlohmann::json;

// A registered model at the given options, with every parameter redrawn N(0, scale²) (so zero-initialised
// biases and states are exercised too) when scale > 0.
inline std::unique_ptr<models::Model> make_model(const std::string& name, const json& cfg, DType dt, uint64_t seed,
                                                 double scale = 0.5) {
  const models::ModelInfo& info = models::find(name);
  Rng rng(seed);
  std::unique_ptr<models::Model> m = info.make(models::resolve(info, cfg), dt, rng);
  if (scale > 0) {
    ParamVec v = ParamVec::random_normal(m->params().layout(), dt, rng);
    v.scale(scale);
    m->params().set_values(v);
  }
  return m;
}

inline std::vector<double> values(const models::Model& m, const std::string& name) {
  auto id = m.params().find(name);
  if (!id) throw std::runtime_error("no parameter " + name);
  return m.params().value(*id).to_vector();
}

// T steps of B symbols in [0, vocab); the last step of sequence 1 is padding when `pad`.
inline models::Sequence symbols(int64_t T, int64_t B, int64_t vocab, bool pad, uint64_t seed = 7) {
  models::Sequence xs;
  xs.T = T;
  xs.B = B;
  std::mt19937_64 rng(seed);
  for (int64_t t = 0; t < T; ++t) {
    std::vector<int32_t> s(B);
    for (auto& x : s) x = static_cast<int32_t>(rng() % vocab);
    xs.symbols.push_back(ops::make_index(s));
  }
  if (pad) {
    for (int64_t t = 0; t < T; ++t) {
      std::vector<double> m(B, 1.0);
      if (t == T - 1 && B > 1) m[1] = 0.0;
      xs.mask.push_back(Tensor::from({B}, m, DType::f64));
    }
  }
  return xs;
}

// The same sequence as one-hot dense rows.
inline models::Sequence one_hot(const models::Sequence& s, int64_t vocab) {
  models::Sequence d = s;
  d.symbols.clear();
  for (int64_t t = 0; t < s.T; ++t) {
    std::vector<double> v(s.B * vocab, 0.0);
    for (int64_t b = 0; b < s.B; ++b) v[b * vocab + (*s.symbols[t])[b]] = 1.0;
    d.dense.push_back(Tensor::from({s.B, vocab}, v, DType::f64));
  }
  return d;
}

// Targets for the model's output kind; the loss counts only steps >= first_loss_step (a loss mask).
inline models::Targets targets(models::OutputKind kind, int64_t T, int64_t B, int64_t out, int64_t first_loss_step,
                               uint64_t seed = 11) {
  models::Targets ys;
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> u(0.05, 0.95);
  for (int64_t t = 0; t < T; ++t) {
    if (kind == models::OutputKind::softmax) {
      std::vector<int32_t> c(B);
      for (auto& x : c) x = static_cast<int32_t>(rng() % out);
      ys.symbols.push_back(ops::make_index(c));
    } else {
      std::vector<double> v(B * out);
      for (auto& x : v) x = u(rng);
      ys.dense.push_back(Tensor::from({B, out}, v, DType::f64));
    }
    ys.mask.push_back(Tensor::full({B}, t >= first_loss_step ? 1.0 : 0.0, DType::f64));
  }
  return ys;
}

inline double sigmoid(double x) { return 1 / (1 + std::exp(-x)); }

}  // namespace tg::testing_more
