#include "riemannian/spd_solve.h"

#include <fmt/format.h>

#include <array>
#include <cstddef>

// xtensor-blas 0.20 (Debian 12) uses ASSERT in its potrf/potrs wrappers without including the header
// that defines it (docs/dependencies.md).
#include <xflens/cxxblas/auxiliary/debugmacro.h>
#include <xtensor-blas/xlapack.hpp>
#include <xtensor/xadapt.hpp>

#include "core/error.h"

namespace tg::riemannian {

void spd_solve(int64_t n, double* M, double* b, const char* what) {
  const auto un = static_cast<size_t>(n);
  // M is symmetric, so its row-major buffer is also its column-major one: LAPACK reads it as it is.
  auto A = xt::adapt<xt::layout_type::column_major>(M, un * un, xt::no_ownership(), std::array<size_t, 2>{un, un});
  auto x = xt::adapt(b, un, xt::no_ownership(), std::array<size_t, 1>{un});
  int info = xt::lapack::potr(A, 'U');
  if (info != 0) throw Error(fmt::format("{}: metric block is not positive definite (LAPACK dpotrf info {})", what, info));
  info = xt::lapack::potrs(A, x, 'U');
  if (info != 0) throw Error(fmt::format("{}: LAPACK dpotrs failed (info {})", what, info));
}

}  // namespace tg::riemannian
