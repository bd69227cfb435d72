// Multiplicative RNN (000 §1.6 eqs 5.5-5.7, Sutskever, Martens & Hinton 2011; 001 §1.5 eq 2.20):
//   f_t = (x_t W_fx) ⊙ (h_{t-1} W_fh)              F factors: W_hh(x_t) = W_fh diag(x_t W_fx) W_hf
//   u_t = f_t W_hf + x_t W_hx + b_h;   h_t = tanh(u_t)
// State {h}; u_t is the structural-damping pre-activation. Sutskever's MRNN has no b_h (with
// one-hot inputs x_t W_hx is a per-symbol bias); Krause's has one and F = H.
#pragma once
#include "models/cell.h"
#include "models/model.h"

namespace tg::models {

struct MrnnOptions {
  int64_t hidden = 100;
  int64_t factors = 0;  // 0: as many factors as hidden units
  bool bias = true;     // b_h
  bool learned_h0 = false;
};

class MrnnCell final : public Cell {
 public:
  MrnnCell(ParamBuilder& p, InputShape in, const MrnnOptions& o);
  State initial(Graph& g, int64_t batch) const override { return h0_.make(g, batch); }
  Step step(Graph& g, const StepInput& x, const State& s) const override;
  Var readout(const State& s) const override { return s[0]; }
  int64_t readout_size() const override { return hidden_; }
  // u_t plus an optional extra additive input (the stacked mRNN's lower layer; empty: none).
  Var preact(Graph& g, const StepInput& x, Var h_prev, Var extra = {}) const;

 private:
  int64_t hidden_;
  ParamId w_fx_, w_fh_, w_hf_, w_hx_, b_h_;
  InitialState h0_;
};

ModelInfo mrnn_info();

}  // namespace tg::models
