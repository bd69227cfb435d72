#include "models/init.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <numeric>
#include <random>
#include <vector>

// xtensor-blas 0.20 (Debian 12) uses ASSERT in its potrf/potrs wrappers without including the header
// that defines it (docs/dependencies.md).
#include <xflens/cxxblas/auxiliary/debugmacro.h>
#include <xtensor-blas/xlinalg.hpp>
#include <xtensor/xadapt.hpp>
#include <xtensor/xmanipulation.hpp>

#include "core/error.h"


namespace tg::models::init {

namespace {

void need_matrix(const Tensor& t, const char* who) {
  if (t.shape().rank() != 2)
    throw Error(fmt::format("init::{}: needs a matrix, got {}", who, t.shape().str()));
}
void need_square(const Tensor& t, const char* who) {
  need_matrix(t, who);
  if (t.shape()[0] != t.shape()[1])
    throw Error(fmt::format("init::{}: needs a square matrix, got {}", who, t.shape().str()));
}

// Element access without caring about the dtype (initialisation is not a hot path).
void set(Tensor& t, int64_t i, double v) {
  TG_DISPATCH(t.dtype(), T, t.data<T>()[i] = static_cast<T>(v));
}
void scale_in_place(Tensor& t, double factor) {
  TG_DISPATCH(t.dtype(), T, {
    T* p = t.data<T>();
    for (int64_t i = 0; i < t.size(); ++i) p[i] = static_cast<T>(p[i] * factor);
  });
}

}  // namespace

Init sparse(int64_t k, double stddev) {
  return [k, stddev](Tensor& w, Rng& rng) {
    need_matrix(w, "sparse");
    const int64_t rows = w.shape()[0], cols = w.shape()[1];
    w.fill(0);
    std::normal_distribution<double> d(0.0, stddev);
    std::vector<int64_t> order(rows);
    for (int64_t j = 0; j < cols; ++j) {
      std::iota(order.begin(), order.end(), 0);
      const int64_t n = std::min(k, rows);
      for (int64_t i = 0; i < n; ++i) {  // partial Fisher-Yates: n distinct incoming rows
        std::uniform_int_distribution<int64_t> pick(i, rows - 1);
        std::swap(order[i], order[pick(rng)]);
        set(w, order[i] * cols + j, d(rng));
      }
    }
  };
}

Init glorot() {
  return [](Tensor& w, Rng& rng) {
    need_matrix(w, "glorot");
    const double a = std::sqrt(6.0 / static_cast<double>(w.shape()[0] + w.shape()[1]));
    tg::init::uniform(-a, a)(w, rng);
  };
}

Init identity(double scale) {
  return [scale](Tensor& w, Rng&) {
    need_square(w, "identity");
    w.fill(0);
    for (int64_t i = 0; i < w.shape()[0]; ++i) set(w, i * w.shape()[0] + i, scale);
  };
}

Init scaled(Init base, double factor) {
  return [base, factor](Tensor& w, Rng& rng) {
    base(w, rng);
    scale_in_place(w, factor);
  };
}

Init with_spectral_radius(Init base, double radius) {
  return [base, radius](Tensor& w, Rng& rng) {
    need_square(w, "with_spectral_radius");
    base(w, rng);
    const double r = spectral_radius(w);
    if (r == 0) throw Error("init::with_spectral_radius: the base init gave a nilpotent matrix (radius 0)");
    scale_in_place(w, radius / r);
  };
}

Init blockwise(int64_t blocks, Init base) {
  return [blocks, base](Tensor& w, Rng& rng) {
    need_matrix(w, "blockwise");
    const int64_t rows = w.shape()[0], cols = w.shape()[1];
    if (blocks < 1 || cols % blocks != 0)
      throw Error(fmt::format("init::blockwise: {} columns do not split into {} blocks", cols, blocks));
    const int64_t n = cols / blocks;
    for (int64_t b = 0; b < blocks; ++b) {
      Tensor part = Tensor::empty({rows, n}, w.dtype());
      base(part, rng);
      for (int64_t i = 0; i < rows; ++i)
        for (int64_t j = 0; j < n; ++j) set(w, i * cols + b * n + j, part.at(i * n + j));
    }
  };
}

Init per_row_square(int64_t n, Init base) {
  return [n, base](Tensor& w, Rng& rng) {
    need_matrix(w, "per_row_square");
    if (w.shape()[1] != n * n)
      throw Error(fmt::format("init::per_row_square: rows of {} are not {}x{} matrices", w.shape().str(), n, n));
    for (int64_t r = 0; r < w.shape()[0]; ++r) {
      Tensor part = Tensor::empty({n, n}, w.dtype());
      base(part, rng);
      for (int64_t i = 0; i < n * n; ++i) set(w, r * n * n + i, part.at(i));
    }
  };
}

double spectral_radius(const Tensor& square) {
  need_square(square, "spectral_radius");
  const auto n = static_cast<size_t>(square.shape()[0]);
  if (n == 0) return 0;
  // The eigenvalues of A and Aᵀ agree; handing LAPACK Aᵀ lets it read the row-major buffer as it is.
  const std::vector<double> a = square.to_vector();
  const auto eig = xt::linalg::eigvals(xt::transpose(xt::adapt(a, std::array<size_t, 2>{n, n})));
  double r = 0;
  for (const auto& e : eig) r = std::max(r, std::hypot(e.real(), e.imag()));
  return r;
}

InitOptions InitOptions::read(const OptionReader& o) {
  InitOptions r;
  if (o.has("init")) r.scheme = o.choice("init", {"normal", "uniform", "sparse", "glorot"});
  if (o.has("init_scale")) r.scale = o.number("init_scale");
  if (o.has("sparse_k")) r.sparse_k = o.size("sparse_k");
  if (o.has("input_scale")) r.input_scale = o.number("input_scale");
  if (o.has("output_scale")) {
    r.output_scale = o.number("output_scale");
    if (r.output_scale < 0) o.fail("option 'output_scale' must be >= 0 (0 = output weights start at zero)");
  }
  if (o.has("recurrent_init"))
    r.recurrent = o.choice("recurrent_init", {"same", "normal", "uniform", "sparse", "glorot", "identity"});
  if (o.has("spectral_radius")) {
    r.spectral_radius = o.number("spectral_radius");
    if (r.spectral_radius < 0) o.fail("option 'spectral_radius' must be >= 0 (0 = no rescaling)");
  }
  return r;
}

Init InitOptions::weights(const std::string& s) const {
  if (s == "normal") return normal(scale);
  if (s == "uniform") return uniform(-scale, scale);
  if (s == "sparse") return sparse(sparse_k, scale);
  if (s == "glorot") return glorot();
  if (s == "identity") return identity(1.0);
  throw Error(fmt::format("init: unknown scheme '{}'", s));
}

nlohmann::json init_defaults(bool recurrent, double scale) {
  nlohmann::json j = {{"init", "normal"}, {"init_scale", scale}, {"sparse_k", 15}, {"input_scale", 1.0},
                      {"output_scale", 1.0}};
  if (recurrent) {
    j["recurrent_init"] = "same";
    j["spectral_radius"] = 0.0;
  }
  return j;
}

std::vector<double> normal_values(int64_t n, double stddev, Rng& rng) {
  std::normal_distribution<double> d(0.0, stddev);
  std::vector<double> v(n);
  for (double& x : v) x = stddev > 0 ? d(rng) : 0.0;
  return v;
}

}  // namespace tg::models::init
