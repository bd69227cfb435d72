// Weight initializers for the model zoo. Each is a tg::Init (fills a tensor from an Rng), so they
// compose: blockwise(4, with_spectral_radius(sparse(15, 1.0), 1.2)) initialises each gate block of a
// fused [H, 4H] recurrent matrix as Sutskever's ESN-style recipe does.
// Weights are stored [from, to] (batches are rows: x W), so a "unit" is a column and its incoming
// weights are that column's rows.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/params.h"
#include "core/options.h"

namespace tg::models::init {

using tg::init::constant;
using tg::init::normal;   // dense N(0, stddev²)
using tg::init::uniform;  // dense U[lo, hi]
using tg::init::zeros;

// Martens (2010) sparse init: each unit (column) gets `k` incoming weights drawn N(0, stddev²), the
// rest 0; all of them when the fan-in is below k (000 §2.5).
Init sparse(int64_t k, double stddev);
// Glorot & Bengio (2010) uniform: U[±sqrt(6 / (fan_in + fan_out))] for a [fan_in, fan_out] matrix.
Init glorot();
// scale · I (a square matrix): the IRNN's recurrent init (Le et al. 2015; 004 §1.3).
Init identity(double scale = 1.0);
// `base`, then rescaled so that the largest |eigenvalue| is `radius` (a square matrix; 000 §2.5).
Init with_spectral_radius(Init base, double radius);
// `base` times a constant (Sutskever's small input weights: sparse init × 0.02).
Init scaled(Init base, double factor);
// `base` applied separately to each of `blocks` equal column blocks ([rows, blocks·n]: fused gates).
Init blockwise(int64_t blocks, Init base);
// `base` applied to each row of a [count, n·n] tensor seen as an n×n matrix (tensor RNN slices).
Init per_row_square(int64_t n, Init base);

// The largest |eigenvalue| of a square matrix (LAPACK dgeev).
double spectral_radius(const Tensor& square);

// The "init*" options every model shares, read from its JSON. Schemes: normal | uniform | sparse |
// glorot, plus identity for recurrent matrices.
struct InitOptions {
  std::string scheme = "normal";
  double scale = 0.1;           // normal / sparse: the stddev; uniform: the half-width
  int64_t sparse_k = 15;        // nonzero incoming weights per unit for "sparse"
  double input_scale = 1.0;     // extra factor on input weights
  double output_scale = 1.0;    // extra factor on the output layer's weights (0: they start at zero)
  std::string recurrent = "same";  // square recurrent matrices: "same" as scheme, another scheme, or identity
  double spectral_radius = 0;   // > 0: rescale each square recurrent matrix to this spectral radius

  static InitOptions read(const OptionReader& o);  // reads whichever of the keys below are present
  Init weights(const std::string& scheme_name) const;  // one scheme at this scale
};

// Default JSON for the shared init options; `recurrent` adds recurrent_init and spectral_radius
// (only for models whose recurrent weights are square matrices).
nlohmann::json init_defaults(bool recurrent, double scale = 0.1);

// n values drawn N(0, stddev²) in order from rng (all 0 when stddev is 0): initial values of models
// that draw their parameters as one stream (Ollivier's GLNN, GNN and RNN).
std::vector<double> normal_values(int64_t n, double stddev, Rng& rng);

}  // namespace tg::models::init
