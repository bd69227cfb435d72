// Tensor RNN (000 §1.6 eqs 5.1-5.3): one recurrent matrix per input symbol,
//   u_t = x_t W_hx + h_{t-1} W_hh^(x_t) + b_h,   W_hh^(x) = Σ_m x^m W_hh^(m);   h_t = tanh(u_t).
// W_hh is stored [in, H·H] (row m: W_hh^(m) flattened [from, to]), so a symbol's matrix is a row
// lookup and a dense input mixes the matrices with one matmul. O(in·H²) parameters: small vocabularies.
// State {h}; u_t is the structural-damping pre-activation.
#pragma once
#include "models/cell.h"
#include "models/model.h"

namespace tg::models {

struct TensorRnnOptions {
  int64_t hidden = 30;
  bool bias = true;
  bool learned_h0 = false;
};

class TensorRnnCell final : public Cell {
 public:
  TensorRnnCell(ParamBuilder& p, InputShape in, const TensorRnnOptions& o);
  State initial(Graph& g, int64_t batch) const override { return h0_.make(g, batch); }
  Step step(Graph& g, const StepInput& x, const State& s) const override;
  Var readout(const State& s) const override { return s[0]; }
  int64_t readout_size() const override { return hidden_; }

 private:
  int64_t hidden_;
  ParamId w_hx_, w_hh_, b_h_;
  InitialState h0_;
};

ModelInfo tensor_rnn_info();

}  // namespace tg::models
