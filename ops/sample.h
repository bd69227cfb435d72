// Sampling ops (Bernoulli and Gaussian) with NO derivative: their JVP and VJP are zero
// (stop-gradient semantics; the engine's convention for non-differentiable primitives: jvp = vjp =
// nullptr, differentiable = false, as for greater and stop_gradient).
// The random draws are a tensor input taken by the caller from a tg::Rng, not a seed attribute:
// the tape may evaluate a node more than once (rematerialisation, curvature passes) and must get the
// same sample each time, and draws held as data make every result deterministic by the caller's seed.
#pragma once
#include "core/graph.h"
#include "core/params.h"
#include "core/site.h"
#include "core/var.h"

namespace tg::ops {
Var bernoulli(Var p, Var u, Site site = Site::current());  // 1[u < p], u ~ U[0,1) of p's shape
Var gaussian(Var mu, Var eps, double sigma = 1.0, Site site = Site::current());  // mu + sigma eps, eps ~ N(0,1)
Tensor uniform_draws(const Shape& s, DType dt, Rng& rng);  // U[0,1), row-major in rng's order
Tensor normal_draws(const Shape& s, DType dt, Rng& rng);   // N(0,1), row-major in rng's order
Var sample_bernoulli(Var p, Rng& rng, Site site = Site::current());  // bernoulli(p, input(uniform_draws))
Var sample_gaussian(Var mu, Rng& rng, double sigma = 1.0, Site site = Site::current());
}  // namespace tg::ops
