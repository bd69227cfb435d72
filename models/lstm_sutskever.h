// Sutskever's LSTM (000 §1.2, thesis §2.8.3 eqs 2.37-2.44): a conventional tanh layer h of H units
// and N memory cells m; the gates read the *current* h_t and the *previous* gated memory m̃_{t-1}:
//   u_t  = x_t W_hx + h_{t-1} W_hh + m̃_{t-1} W_hm (+ b_h);   h_t = tanh(u_t)
//   a_t  = x_t W_gx + h_t W_gh + m̃_{t-1} W_gm + b_g          gates [i, f, o, g] ([B, 4N])
//   m_t  = m_{t-1} ⊙ σ(a_f) + tanh(a_g) ⊙ σ(a_i);   m̃_t = m_t ⊙ σ(a_o)
//   z_t  = h_t W_yh + m̃_t W_ym = [h_t m̃_t] W_oh
// Only the forget gate has a bias in the thesis (b_f, initialised large: +3 in Ch 4, "such as 5");
// "bias": true adds b_h and biases on every gate. State {h, m, m̃}; u_t is the structural-damping
// pre-activation (the conventional hidden layer, as in the thesis's RNN).
#pragma once
#include "models/cell.h"
#include "models/model.h"

namespace tg::models {

struct SutskeverLstmOptions {
  int64_t hidden = 100;  // H conventional tanh units
  int64_t cells = 100;   // N memory cells
  bool bias = false;     // b_h and all gate biases (else only b_f)
  double forget_bias = 3.0;
  bool learned_h0 = false;  // learned h_0, m_0 and m̃_0
};

class SutskeverLstmCell final : public Cell {
 public:
  SutskeverLstmCell(ParamBuilder& p, InputShape in, const SutskeverLstmOptions& o);
  State initial(Graph& g, int64_t batch) const override { return init_.make(g, batch); }
  Step step(Graph& g, const StepInput& x, const State& s) const override;
  Var readout(const State& s) const override;  // [h m̃]
  int64_t readout_size() const override { return hidden_ + cells_; }

 private:
  int64_t hidden_, cells_;
  ParamId w_hx_, w_hh_, w_hm_, b_h_, w_gx_, w_gh_, w_gm_, b_g_, b_f_;
  InitialState init_;
};

ModelInfo lstm_sutskever_info();

}  // namespace tg::models
