// Test problems with known spectra: the rows of a random orthogonal matrix (Gram-Schmidt on
// N(0, 1) draws, row by row, so a seed gives the same matrix in every test that uses it).
#pragma once
#include <cmath>
#include <random>
#include <vector>

#include "core/params.h"

namespace tg::optim {

inline std::vector<std::vector<double>> random_orthonormal_rows(int n, Rng& rng) {
  std::normal_distribution<double> d(0, 1);
  std::vector<std::vector<double>> q(n, std::vector<double>(n));
  for (int i = 0; i < n; ++i) {
    for (double& v : q[i]) v = d(rng);
    for (int k = 0; k < i; ++k) {
      double dot = 0;
      for (int j = 0; j < n; ++j) dot += q[i][j] * q[k][j];
      for (int j = 0; j < n; ++j) q[i][j] -= dot * q[k][j];
    }
    double norm = 0;
    for (double v : q[i]) norm += v * v;
    for (double& v : q[i]) v /= std::sqrt(norm);
  }
  return q;
}

}  // namespace tg::optim
