// Plain-loop references for the hand-computed forward steps: parameters read out of a model as
// row-major matrices, one sequence at a time, no graph. Each *_forward_test.cc writes its
// architecture's equations with these and compares them with the builder.
#pragma once
#include <gtest/gtest.h>

#include <cmath>
#include <functional>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "models/model.h"
#include "ops/ops.h"

namespace tg::reference {

using Vec = std::vector<double>;

struct Mat {
  int64_t rows = 0, cols = 0;
  Vec v;
  double at(int64_t i, int64_t j) const { return v[i * cols + j]; }
  Vec row(int64_t i) const { return Vec(v.begin() + i * cols, v.begin() + (i + 1) * cols); }
};

// A registered model in float64, every parameter drawn U[-0.6, 0.6] from a fixed seed.
inline std::unique_ptr<models::Model> make(const std::string& name, const nlohmann::json& options, uint64_t seed = 5) {
  const models::ModelInfo& info = models::find(name);
  Rng rng(seed);
  auto m = info.make(models::resolve(info, options), DType::f64, rng);
  std::uniform_real_distribution<double> u(-0.6, 0.6);
  double* p = m->params().values().flat().data<double>();
  for (int64_t i = 0; i < m->params().numel(); ++i) p[i] = u(rng);
  return m;
}

// A parameter as a matrix (a vector [n] reads as one row).
inline Mat param(const models::Model& m, const std::string& name) {
  auto id = m.params().find(name);
  if (!id) throw std::runtime_error("no parameter " + name);
  const Shape s = m.params().shape(*id);
  Mat w;
  w.rows = s.rank() == 2 ? s[0] : 1;
  w.cols = s.rank() == 2 ? s[1] : s[0];
  w.v = m.params().value(*id).to_vector();
  return w;
}
inline Vec vec(const models::Model& m, const std::string& name) { return param(m, name).v; }

inline Vec vecmat(const Vec& x, const Mat& w) {  // x W
  Vec y(w.cols, 0.0);
  for (int64_t i = 0; i < w.rows; ++i)
    for (int64_t j = 0; j < w.cols; ++j) y[j] += x[i] * w.at(i, j);
  return y;
}
inline Vec slice(const Vec& x, int64_t begin, int64_t n) { return Vec(x.begin() + begin, x.begin() + begin + n); }
inline Vec cat(const Vec& a, const Vec& b) {
  Vec c = a;
  c.insert(c.end(), b.begin(), b.end());
  return c;
}
inline Vec add(const Vec& a, const Vec& b) {
  Vec c(a.size());
  for (size_t i = 0; i < a.size(); ++i) c[i] = a[i] + b[i];
  return c;
}
inline Vec mul(const Vec& a, const Vec& b) {
  Vec c(a.size());
  for (size_t i = 0; i < a.size(); ++i) c[i] = a[i] * b[i];
  return c;
}
inline Vec map(const Vec& a, double (*f)(double)) {
  Vec c(a.size());
  for (size_t i = 0; i < a.size(); ++i) c[i] = f(a[i]);
  return c;
}
inline double sigm(double x) { return 1.0 / (1.0 + std::exp(-x)); }
inline double tanh_(double x) { return std::tanh(x); }
inline double relu(double x) { return x > 0 ? x : 0; }
inline Vec sigm(const Vec& a) { return map(a, sigm); }
inline Vec tanh(const Vec& a) { return map(a, tanh_); }

// Symbolic inputs: T steps of B symbols.
inline models::Sequence symbols(std::vector<std::vector<int32_t>> steps) {
  models::Sequence xs;
  xs.T = static_cast<int64_t>(steps.size());
  xs.B = static_cast<int64_t>(steps.at(0).size());
  for (auto& s : steps) xs.symbols.push_back(ops::make_index(std::move(s)));
  return xs;
}

// What the hand computation gives for one sequence at one step.
struct StepRef {
  Vec preact, readout, logits;
};
// The reference for sequence b over all steps.
using Reference = std::function<std::vector<StepRef>(int64_t b)>;

// Unrolls the model and compares every step's pre-activation, readout and logits row by row.
inline void expect_matches(const models::Model& m, const models::Sequence& xs, const Reference& ref, double tol = 1e-12) {
  Graph g;
  models::Outputs out = m.unroll(g, xs);
  ASSERT_EQ(static_cast<int64_t>(out.logits.size()), xs.T);
  for (int64_t b = 0; b < xs.B; ++b) {
    std::vector<StepRef> want = ref(b);
    for (int64_t t = 0; t < xs.T; ++t) {
      auto check = [&](const char* what, Var got, const Vec& expected) {
        const int64_t n = got.shape()[1];
        ASSERT_EQ(n, static_cast<int64_t>(expected.size())) << what << " at t=" << t;
        for (int64_t j = 0; j < n; ++j)
          EXPECT_NEAR(got.value().at(b * n + j), expected[j], tol) << what << " t=" << t << " b=" << b << " j=" << j;
      };
      check("preact", out.preact[t], want[t].preact);
      check("readout", out.hidden[t], want[t].readout);
      check("logits", out.logits[t], want[t].logits);
    }
  }
}

}  // namespace tg::reference
