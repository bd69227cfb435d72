// Structurally constrained recurrent network, SCRN (Mikolov et al. 2015, as in Galvan, seed 002 §2.1.3):
//   s_t = (1 - alpha) x_t B + alpha s_{t-1}                   (2.11)  context units: linear, near-identity
//   u_t = s_t P + x_t A + h_{t-1} R + b_h,   h_t = sigma(u_t)  (2.12)  note: the same step's s_t
//   z_t = h_t U + s_t V + b_y                                 (2.13)  the output layer reads [h_t, s_t]
// Fixed alpha: a scalar option. Learned (2.15): s_t = (1 - q) ⊙ x_t B + q ⊙ s_{t-1}, q = logistic(beta),
// one time scale per context unit, beta initialised to logit(alpha).
// The seed writes no biases; we keep b_h (bias = false removes it) and the output bias. sigma is
// logistic by default, as in Mikolov et al. State {h, s}; u_t is the structural-damping pre-activation
// (the context units are linear and have none).
#pragma once
#include "models/activation.h"
#include "models/cell.h"
#include "models/model.h"

namespace tg::models {

struct ScrnOptions {
  int64_t hidden = 100;
  int64_t context = 40;
  double alpha = 0.95;
  bool learned_alpha = false;
  Activation activation = Activation::logistic;
  bool bias = true;
  bool learned_h0 = false;  // learned h0 and s0
};

class ScrnCell final : public Cell {
 public:
  ScrnCell(ParamBuilder& p, InputShape in, const ScrnOptions& o);
  State initial(Graph& g, int64_t batch) const override { return init_.make(g, batch); }
  Step step(Graph& g, const StepInput& x, const State& s) const override;
  Var readout(const State& s) const override;  // [h, s]
  int64_t readout_size() const override { return o_.hidden + o_.context; }

 private:
  ScrnOptions o_;
  ParamId B_, A_, R_, P_, b_h_, beta_;
  InitialState init_;
};

}  // namespace tg::models
