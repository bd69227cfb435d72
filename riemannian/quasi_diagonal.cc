#include "riemannian/quasi_diagonal.h"

#include <fmt/format.h>

#include "core/error.h"

namespace tg::riemannian {

void quasi_diagonal_solve(int64_t k, const double* G, double M00, const double* M0, const double* Md, double* D) {
  if (!(M00 > 0)) throw Error(fmt::format("quasi-diagonal solve: bias entry {} is not positive (no damping?)", M00));
  double d0 = G[0] / M00;
  for (int64_t i = 1; i <= k; ++i) {
    const double r = M0[i - 1] / M00;
    const double den = Md[i - 1] - M0[i - 1] * r;
    if (!(den > 0)) throw Error(fmt::format("quasi-diagonal solve: reduced diagonal {} of signal {} is not positive", den, i));
    D[i] = (G[i] - G[0] * r) / den;
    d0 -= r * D[i];
  }
  D[0] = d0;
}

}  // namespace tg::riemannian
