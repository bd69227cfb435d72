// The generic gradient-check harness, run in float64 on every primitive, composite and model:
//   1. JVP against central finite differences along a random direction;
//   2. the dot-product test <u, J v> = <Jᵀ u, v> between JVP and VJP;
//   3. both again at second order, on the graphs x -> Jᵀ u (VJP) and x -> J v (JVP);
//   4. linearize reuse: cached JVP/VJP equal fresh ones and the primal is never re-evaluated.
// Outputs are compared through random projections, never plain sums (a sum seeds all-ones
// cotangents and hides symmetric bugs).
#pragma once
#include <cstdint>
#include <functional>
#include <span>
#include <string>
#include <vector>

#include "core/graph.h"
#include "core/params.h"

namespace tg::check {

// The function under test: builds its outputs from the given input leaves on a fresh graph.
using Fn = std::function<std::vector<Var>(Graph& g, std::span<const Var> inputs)>;

struct Options {
  double eps = 1e-6;          // finite-difference step (float64)
  double fd_tol = 1e-6;       // relative error allowed for FD vs JVP
  double dot_tol = 1e-10;     // relative error allowed in the dot-product test
  int order = 2;              // 1: first order only
  bool finite_differences = true;  // false for ops whose derivative is zero by definition (stop_gradient)
  int linearize_calls = 10;
  uint64_t seed = 1;
};

struct Report {
  bool ok = true;
  double worst = 0;            // the worst relative error over all checks
  double fd1 = 0, dot1 = 0;    // first order
  double fd2 = 0, dot2 = 0;    // second order (max over the VJP and JVP graphs)
  double lin = 0;              // linearize vs fresh
  uint64_t primal_reevals = 0; // must be 0
  std::string failure;         // what failed, if anything
};

Report check_fn(const Fn& f, const std::vector<Tensor>& inputs, const Options& opt = {});

// The independent side of a Gauss-Newton row (network_specs.h, gated_specs.h): with z(θ) the flattened
// outputs a loss reads, J v and Jᵀ u by central differences (step 1e-5) around θ and u = H J v from the
// caller's `hessian_times(z, jv)` (H written out by hand); entries of θ where `varies` is false (when given)
// have a zero row of Jᵀ and get 0. Compared with the engine's G v: worst = max |engine - reference| over
// max |reference|, ok when below 1e-6.
using OutputsAt = std::function<std::vector<double>(const ParamVec& theta)>;
using HessianTimes = std::function<std::vector<double>(const std::vector<double>& z, const std::vector<double>& jv)>;
Report check_gauss_newton_product(const std::vector<double>& engine, const OutputsAt& z, const ParamVec& theta,
                                  const ParamVec& v, const HessianTimes& hessian_times,
                                  const std::vector<bool>& varies = {});

// Random inputs of the given shapes, uniform in [lo, hi] (float64).
std::vector<Tensor> random_inputs(const std::vector<Shape>& shapes, double lo, double hi, uint64_t seed);

}  // namespace tg::check
