// GRU (Cho et al. 2014, eqs 5-8; 002 §2.4, 004 §1.5):
//   z = σ(x W_zx + h_{t-1} W_zh + b_z)        update gate
//   r = σ(x W_rx + h_{t-1} W_rh + b_r)        reset gate
//   ũ = x W_hx + (r ⊙ h_{t-1}) W_hh + b_h;   h̃ = tanh(ũ)   (logistic as printed in 002: option)
//   h_t = z ⊙ h_{t-1} + (1 - z) ⊙ h̃          (Cho's convention; 002 prints (1-z) h + z h̃, the same
//                                              family with z -> 1 - z)
// Input weights fused as W_gx [in, 3H] = [W_zx W_rx W_hx], b_g [3H]; W_gh [H, 2H] = [W_zh W_rh].
// State {h}; ũ is the structural-damping pre-activation.
#pragma once
#include "models/activation.h"
#include "models/cell.h"
#include "models/model.h"

namespace tg::models {

struct GruOptions {
  int64_t hidden = 100;
  bool bias = true;
  bool learned_h0 = false;
  Activation candidate = Activation::tanh;
};

class GruCell final : public Cell {
 public:
  GruCell(ParamBuilder& p, InputShape in, const GruOptions& o);
  State initial(Graph& g, int64_t batch) const override { return h0_.make(g, batch); }
  Step step(Graph& g, const StepInput& x, const State& s) const override;
  Var readout(const State& s) const override { return s[0]; }
  int64_t readout_size() const override { return hidden_; }

 private:
  int64_t hidden_;
  Activation candidate_;
  ParamId w_gx_, w_gh_, w_hh_, b_g_;
  InitialState h0_;
};

ModelInfo gru_info();

}  // namespace tg::models
