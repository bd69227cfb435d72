// Martens' (2010) diagonal preconditioner for HF's CG: M = [diag(Σ_i g_i ⊙ g_i) + λ I]^α, α = 0.75,
// g_i the per-example gradients. Here the examples are the sequences of the curvature batch and the
// g_i are scaled so that the diagonal is exactly the diagonal of the empirical Fisher matrix the
// "fisher" curvature uses, (1/N) Σ_n ∇(N ℓ_n/W) ∇(N ℓ_n/W)ᵀ, which puts it on the same scale as the
// Gauss-Newton matrix and λ. Per-sequence gradients come from one small forward/backward pass per
// sequence (the same flops as one pass over the batch, without the batched BLAS): the engine has no
// per-example gradient transform, and weight sharing over time rules out the per-layer outer-product
// trick of feed-forward nets.
#pragma once
#include <functional>
#include <vector>

#include "core/params.h"
#include "optim/objective.h"

namespace tg::optim {

// diag of the empirical Fisher on b, from one gradient per sequence (float64 values in θ's layout).
std::vector<double> empirical_fisher_diagonal(Objective& obj, const ParamVec& theta, const Data& b);

// x -> M⁻¹ x with M = (d + λ)^α elementwise (an entry with d + λ = 0 is left unscaled); throws on a
// negative or non-finite entry and, when called, on a vector of another size.
std::function<ParamVec(const ParamVec&)> diagonal_preconditioner(std::vector<double> d, double lambda, double alpha);

}  // namespace tg::optim
