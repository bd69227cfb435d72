// The factored gated autoencoder (FGAE) of Krueger's thesis Ch. 6, eqs 6.1–6.2 (digest 004 §1.7; Memisevic
// 2013), the building block of the predictive gating pyramid (models/gating_pyramid.h), as graph ops:
//   m = σ( (x Uᵀ ⊙ y Vᵀ) Wᵀ + b_m )          mapping units: the transformation taking x to y
//   ŷ = (x Uᵀ ⊙ m W) V + b_out               y given x and the mapping (eq 6.2)
//   x̂ = (y Vᵀ ⊙ m W) U + b_out               x given y and the mapping (the symmetric half)
// U, V [F, in] are the factor filters of the two inputs, W [H, F] the mapping weights, tied between
// inference and reconstruction as in eqs 6.1–6.2 (the authors' pgp3layer.py ties them too; their
// pgp_scan.py does not). Rows are cases: x, y [N, in], m [N, H].
//
// Training follows the authors' code (memisevic/grammar-cells, gatedAutoencoder.py): the symmetric
// reconstruction error ½‖x − x̂‖² + ½‖y − ŷ‖² on inputs corrupted by zero-masking. The biases (on by
// default) are theirs too; eqs 6.1–6.2 have none. b_m starts at −2 (sparse mappings), like theirs.
#pragma once
#include <cstdint>
#include <string>

#include "core/graph.h"
#include "core/params.h"

namespace tg::models {

struct GaeLayer {
  ParamId U, V, W;   // [F, in], [F, in], [H, F]
  ParamId b_m, b_out;  // [H], [in]; invalid when the layer has no biases
  int64_t in = 0, factors = 0, mappings = 0;
  bool biases = true;
};

// Adds a layer's parameters under `scope` ("pgp/l1"): U, V ~ N(0, init_scale² / in), W ~ N(0, init_scale² / F)
// (each factor and each mapping pre-activation starts at unit scale on standardised inputs).
GaeLayer add_gae_layer(ParamSet& ps, const std::string& scope, int64_t in, int64_t factors, int64_t mappings,
                       bool biases, double init_scale, Rng& rng);

// σ's argument of eq 6.1, [N, H] (the graph must have the layer's parameters bound).
Var gae_preactivation(Graph& g, const GaeLayer& l, Var x, Var y);
// The mapping units m of eq 6.1, [N, H].
Var gae_mappings(Graph& g, const GaeLayer& l, Var x, Var y);
// eq 6.2: the input that mapping m takes x to, [N, in].
Var gae_forward(Graph& g, const GaeLayer& l, Var x, Var m);
// The symmetric half: the input that mapping m takes to y, [N, in].
Var gae_backward(Graph& g, const GaeLayer& l, Var y, Var m);

}  // namespace tg::models
