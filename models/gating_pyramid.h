// The predictive gating pyramid (PGP; Michalski, Memisevic & Konda 2014, "recurrent grammar cells") and
// Krueger's conditional PGP (CPGP, thesis §6.2; digest 004 §1.8–1.9), as graph ops over gated
// autoencoder layers (models/gated_autoencoder.h).
//
// Layer 1 relates consecutive frames, layer ℓ + 1 consecutive mappings of layer ℓ: with z¹_t = x_t,
//   z^{ℓ+1}_t = m_ℓ(z^ℓ_{t-1}, z^ℓ_t)                     velocity, acceleration, jerk, ...
// so n layers need n + 1 frames to infer the top mapping. Prediction runs top-down with the top mapping
// held constant (the thesis: "keep the top dynamics constant and run the pyramid forward"):
//   ẑ^n_{t+1} = forward_n(z^n_t, m_top),   ẑ^ℓ_{t+1} = forward_ℓ(z^ℓ_t, ẑ^{ℓ+1}_{t+1}),   x̂_{t+1} = ẑ¹_{t+1}
// and the predicted z's are the next step's state, for as many steps as the targets ask (closed loop,
// the k-step prediction the authors train by BPTT). Their code can also mix each predicted level with
// one re-inferred from the predicted frames (a learned "autonomy"; 1 = ours); we keep the thesis's rule.
//
// CPGP: inputs u_t act on the top units through one sigmoid layer (A, a), which the thesis describes
// without equations; both readings of the digest are options:
//   cond_mode "add":    m_top,t = m_top + σ(u_t A + a)          added to the units
//   cond_mode "preact": m_top,t = σ(p_top + u_t A + a)          inside their pre-activation
// where m_top = σ(p_top) is the top mapping inferred from the seed frames.
//
// Training (the authors' recipe, grammar-cells code): each layer pre-trained alone as a symmetric
// denoising gated autoencoder on the sequence of its inputs (layers below fixed), then the whole pyramid
// by BPTT on the squared error of its closed-loop predictions. Both are losses of one objective here
// (models/gating_pyramid_objective.h), switched by the trainer's iteration.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/graph.h"
#include "core/params.h"
#include "models/gated_autoencoder.h"

namespace tg::models {

struct GatingPyramidOptions {
  std::string kind = "pgp";      // "fgae" (one layer, trained as an autoencoder), "pgp", "cpgp"
  int64_t frame = 0;             // units per frame (from the task)
  int64_t cond = 0;              // CPGP: conditioning inputs per step (from the task); 0 for the others
  std::vector<int64_t> factors;  // per layer
  std::vector<int64_t> mappings; // per layer
  bool biases = true;
  double init_scale = 1.0;
  double corruption = 0.3;       // zero-masking probability of the autoencoder losses' inputs in training
  int64_t pretrain_steps = 0;    // PGP/CPGP: updates of autoencoder pre-training per layer, bottom first
  std::string cond_mode = "add"; // CPGP: "add" or "preact" (above)
  int layers() const { return static_cast<int>(factors.size()); }
};

class GatingPyramid {
 public:
  GatingPyramid(const GatingPyramidOptions& o, DType dt, Rng& rng);  // tg::Error for bad options
  const GatingPyramidOptions& options() const { return opt_; }
  const ParamSet& params() const { return ps_; }
  ParamSet& params() { return ps_; }
  const std::vector<GaeLayer>& layers() const { return layers_; }

  // The inputs of layer `layer` (1-based) over a sequence of frames (vars [N, frame]): the frames for
  // layer 1, else the mappings of the layer below between consecutive inputs (one fewer per layer).
  // The graph must have params() bound.
  std::vector<Var> layer_inputs(Graph& g, const std::vector<Var>& frames, int layer) const;
  // Layer `layer`'s symmetric reconstruction error over every consecutive pair of its inputs, summed
  // over pairs and rows; the layers below are constants (stop_gradient). keep: per input of the layer,
  // a 0/1 mask of the same shape (denoising), or empty for clean inputs. Also returns how many
  // numbers the error sums over (pairs × rows × 2·in), for a mean.
  struct Reconstruction {
    Var error;
    double count = 0;
    std::vector<Var> forward;   // per pair t-1 -> t: ŷ, the reconstruction of the later input
    std::vector<Var> backward;  // per pair: x̂, the reconstruction of the earlier input
  };
  Reconstruction reconstruction(Graph& g, const std::vector<Var>& frames, int layer,
                                const std::vector<Tensor>& keep = {}) const;
  // Closed-loop prediction: frames[0 .. seed-1] are given (seed >= layers() + 1); returns the predictions
  // of frames seed .. seed + count - 1. conds: CPGP's inputs acting on the prediction of frame t, for
  // t = seed .. seed + count - 1 (count vars [N, cond]); empty for PGP.
  std::vector<Var> predict(Graph& g, const std::vector<Var>& frames, int64_t seed, int64_t count,
                           const std::vector<Var>& conds = {}) const;

 private:
  GatingPyramidOptions opt_;
  ParamSet ps_;
  std::vector<GaeLayer> layers_;
  ParamId A_, a_;  // CPGP's input layer [cond, H_top], [H_top]
};

// The zoo entries `fgae`, `pgp` and `cpgp`: their options with defaults, resolved over the user's (unknown
// keys and bad values are tg::Errors).
bool is_gating_pyramid(const std::string& model);
const nlohmann::json& gating_pyramid_defaults(const std::string& kind);
nlohmann::json resolve_gating_pyramid_options(const std::string& kind, const nlohmann::json& user);
GatingPyramidOptions gating_pyramid_options(const std::string& kind, const nlohmann::json& resolved);

}  // namespace tg::models
