// The temporal Boltzmann machines of Sutskever's thesis Ch. 3 (digest 000 §1.4, §1.5, §2.6) as graphs of
// ops over the RBM of models/rbm.h: frame v_t is an RBM (weights W) whose biases depend on the past,
//   hidden bias  c_t = b_h + Σ_{n=1..m} (p_{t-n} W'_n + v_{t-n} W_n)     W'_n: "hh" links, W_n: "vh" links
//   visible bias b_t = b_v + Σ_{n=1..m} v_{t-n} A_n                       A_n: "vv" links
//   p_t = σ(v_t W + c_t)                                                  the hidden state after frame t
// with learned values (p_init, v_init) for the past before the first frame (the thesis's "learned
// initial values for τ < 1").
//   TRBM:  p_t is the mean-field filtering estimate (eq 3.5) and, as in the learning rules 3.7–3.10, a
//          constant to the gradient (stop_gradient): every frame is an RBM with given dynamic biases.
//   RTRBM: m = 1, hh links only; p_t is the RNN r_t of eq 3.18 and the gradient flows through it (BPTT
//          by the engine), including the direct term Σ_t ∂log P̂(v_t|r_{t-1})/∂b_h r_{t-1}ᵀ of dW' that
//          the printed BPTT (eqs 3.23–3.25) omits; thesis_bptt drops that term (W' reaches the CD terms
//          only through stop_gradient) so its effect can be measured.
// With hh links only, the TRBM's graph is the RTRBM's with stop_gradient on p: exactly the difference
// between the two models' learning in the thesis's comparison (§3.11.3, no delay taps for either).
//
// The loss is the CD-k surrogate (models/rbm.h) averaged over frames and sequences: its gradient is the
// CD estimate of -(1/T) ∇ log P̂(v_1..T) (the thesis divides the gradient by the length). Given the data,
// the frames' biases are known after one pass over p, so the T frames' Gibbs chains run as one [T·N, V]
// batch (one matrix product per Gibbs step, not T).
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/graph.h"
#include "core/params.h"
#include "core/var.h"
#include "models/rbm.h"

namespace tg::models {

struct TemporalRbmOptions {
  bool recurrent = true;   // RTRBM (true) or TRBM (false)
  int64_t visible = 0;     // pixels per frame (from the task)
  int64_t hidden = 400;
  int taps = 1;            // m
  bool hh = true, vh = false, vv = false;  // which links the past has (above)
  double weight_scale = 0.01;  // std of W (the thesis pretrains W with CD-5 instead: not done here)
  double init_scale = 0.005;   // std of W'_n, W_n, A_n and the biases (000 §2.5: 0.005)
  bool thesis_bptt = false;    // RTRBM: drop the direct CD term of dW' (the printed eqs 3.23–3.25)
  int cd_k = 10, cd_k_late = 25;  // CD-cd_k for the first cd_switch updates, then CD-cd_k_late
  int64_t cd_switch = 1000;
  int predict_gibbs = 25;      // Gibbs steps behind each next-frame prediction
};

class TemporalRbm {
 public:
  TemporalRbm(const TemporalRbmOptions& o, DType dt, Rng& rng);  // tg::Error for bad options
  const TemporalRbmOptions& options() const { return opt_; }
  const ParamSet& params() const { return ps_; }
  ParamSet& params() { return ps_; }

  // The frames' RBMs given the data frames (T vars [N,V]): one RBM over the stacked [T·N, V] rows with
  // the stacked dynamic biases (row t·N + n is frame t of sequence n). The graph must have params() bound.
  rbm::Rbm stacked_frames(Graph& g, const std::vector<Var>& frames) const;
  // The CD-k surrogate, mean over frames and sequences (above).
  Var cd_loss(Graph& g, const std::vector<Var>& frames, int k, Rng& rng) const;
  // Next-frame predictions: for t = 1..T-1, the logits of frame t+1's pixel probabilities given frames
  // 1..t: a Gibbs chain of `gibbs` steps in frame t+1's RBM started at frame t, read out as the
  // conditional probabilities given its last hidden sample (what the thesis's videos show). T-1 vars.
  std::vector<Var> predict(Graph& g, const std::vector<Var>& frames, int gibbs, Rng& rng) const;
  // Online denoising (§3.3): the filtering estimate p_t from the frames seen so far (noisy ones), and each
  // frame reconstructed from it, σ(b_t + W p_t) with the frame's dynamic visible bias. T vars [N,V] of
  // pixel probabilities.
  std::vector<Var> denoise(Graph& g, const std::vector<Var>& frames) const;
  // log P̂(v_1..T) = Σ_t log P̂(v_t | past) per sequence [N], exactly by enumerating the 2^V visible states
  // of every frame's RBM (binary visibles, V <= 16; the TRBM's with its filtering estimate of the past).
  Var exact_log_likelihood(Graph& g, const std::vector<Var>& frames) const;
  // Sampling (Algorithms 1 and 3 with mean-field hidden states, as the thesis shows both models): after
  // the `prefix` frames (may be empty), `count` frames, each from a Gibbs chain of `gibbs` steps in its
  // RBM started at the previous frame; frame t is its pixels' probabilities given the chain's last hidden
  // sample, and the past reads those probabilities. Returns count tensors [N,V].
  std::vector<Tensor> generate(const std::vector<Tensor>& prefix, int64_t count, int64_t n, int gibbs,
                               Rng& rng) const;

 private:
  struct Past;  // what the biases of the next frame read
  rbm::Rbm frame_rbm(Graph& g, const Past& past, bool stop_w_prime) const;

  TemporalRbmOptions opt_;
  ParamSet ps_;
  ParamId W_, b_v_, b_h_, p_init_, v_init_;
  std::vector<ParamId> w_hh_, w_vh_, a_vv_;  // per tap n = 1..m (empty where the link is off)
};

// The zoo entries `rtrbm` and `trbm` (tapegrad train --model rtrbm --task bouncing_balls): their
// options with defaults, resolved over the user's (unknown keys and bad values are tg::Errors).
const nlohmann::json& temporal_rbm_defaults(const std::string& kind);
bool is_temporal_rbm(const std::string& model);
nlohmann::json resolve_temporal_rbm_options(const std::string& kind, const nlohmann::json& user);
TemporalRbmOptions temporal_rbm_options(const std::string& kind, const nlohmann::json& resolved);

}  // namespace tg::models
