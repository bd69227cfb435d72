#include "optim/precondition.h"

#include <fmt/format.h>

#include <cmath>

#include "core/error.h"

namespace tg::optim {

std::vector<double> empirical_fisher_diagonal(Objective& obj, const ParamVec& theta, const Data& b) {
  const int64_t N = b.size();
  if (N < 1) throw Error("precondition: the curvature batch is empty");
  std::vector<double> w(static_cast<size_t>(N));
  double W = 0;
  for (int64_t n = 0; n < N; ++n) W += (w[n] = obj.weight(*b.slice(n, 1)));
  if (!(W > 0)) throw Error("precondition: the curvature batch's loss masks select no target");
  std::vector<double> d(static_cast<size_t>(theta.size()), 0.0);
  for (int64_t n = 0; n < N; ++n) {
    if (w[n] == 0) continue;  // no target in this sequence: zero gradient
    // the slice's loss is ℓ_n / w_n, so ∇(N ℓ_n / W) = (N w_n / W) ∇(slice loss)
    ParamVec gn = obj.evaluate(theta, *b.slice(n, 1))->grad();
    const double c = static_cast<double>(N) * w[n] / W;
    const double scale = c * c / static_cast<double>(N);
    TG_DISPATCH(gn.dtype(), T, {
      const T* p = gn.flat().data<T>();
      for (size_t i = 0; i < d.size(); ++i) d[i] += scale * static_cast<double>(p[i]) * static_cast<double>(p[i]);
    });
  }
  return d;
}

std::function<ParamVec(const ParamVec&)> diagonal_preconditioner(std::vector<double> d, double lambda, double alpha) {
  std::vector<double> inv(d.size());
  for (size_t i = 0; i < d.size(); ++i) {
    const double m = d[i] + lambda;
    if (!std::isfinite(m) || m < 0)
      throw Error(fmt::format("precondition: diagonal entry {} + λ = {} is not finite and >= 0", i, m));
    inv[i] = m > 0 ? std::pow(m, -alpha) : 1.0;  // no gradient signal and no damping: left unscaled
  }
  return [inv = std::move(inv)](const ParamVec& x) {
    if (static_cast<size_t>(x.size()) != inv.size())
      throw Error(fmt::format("precondition: a vector of {} for a preconditioner of {}", x.size(), inv.size()));
    ParamVec y = x.clone();
    TG_DISPATCH(y.dtype(), T, {
      T* p = y.flat().data<T>();
      for (size_t i = 0; i < inv.size(); ++i) p[i] = static_cast<T>(static_cast<double>(p[i]) * inv[i]);
    });
    return y;
  };
}

}  // namespace tg::optim
