// Gradient-check rows for the gated models (models/gating_pyramid.h, models/pair_autoencoder.h): each
// row builds a model in float64 at tiny sizes and checks, as functions of every parameter, its
// training losses on fixed frames (the layers' autoencoder errors, the closed-loop prediction error) and
// some of its outputs, with check_fn; and the Gauss-Newton product of its objective (the block at the
// reconstructions or predictions it squares) against Jᵀ H J v assembled independently: J by central
// differences of those outputs, H = I / (the number the loss is a mean over), written out by hand.
#pragma once
#include <string>
#include <vector>

#include "gradcheck/gradcheck.h"

namespace tg::check {

struct GatedSpec {
  std::string name;         // row label
  std::string kind;         // fgae, pgp, cpgp, pair_ae
  int layers = 1;
  int stage = 0;            // the objective's stage for the Gauss-Newton row: 0 prediction, ℓ pre-training
  bool biases = true;
  std::string cond_mode = "add";
};

const std::vector<GatedSpec>& gated_specs();

Report check_gated(const GatedSpec& spec, const Options& opt = {});
// The largest |G v - Jᵀ H J v| over max |Jᵀ H J v| for a random v; ok when below 1e-6.
Report check_gated_gauss_newton(const GatedSpec& spec);

}  // namespace tg::check
