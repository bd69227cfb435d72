// Multiplicative LSTM (001 §1.7, eqs 4.7-4.10; Krause's new architecture): the LSTM's recurrent
// connections come from an mRNN-style factor state instead of h_{t-1}:
//   m_t = (h_{t-1} W_mh) ⊙ (x_t W_mx)                            F factors (Krause: F = H)
//   a_t = x_t W_gx + m_t W_gm (+ b_g);   gates [i, f, o, g] as in lstm.h
//   Krause's memory: linear cell input, c_t = f ⊙ c_{t-1} + i ⊙ g,  h_t = tanh(c_t ⊙ o)
// State {h, c}. The structural-damping pre-activation is ζ_t = c_t ⊙ o (the output tanh's argument),
// or c_t with the output gate outside the tanh.
#pragma once
#include "models/cell.h"
#include "models/lstm.h"
#include "models/model.h"

namespace tg::models {

struct MlstmOptions {
  int64_t hidden = 100;
  int64_t factors = 0;        // 0: as many factors as hidden units
  bool bias = false;
  double forget_bias = 0.0;   // used with bias
  bool learned_h0 = false;    // learned h_0 and c_0
  LstmVariant variant = krause();

  static LstmVariant krause() {
    LstmVariant v;
    v.tanh_cell_input = false;
    v.output = LstmVariant::Output::tanh_of_gated;
    return v;
  }
};

class MlstmCell final : public Cell {
 public:
  MlstmCell(ParamBuilder& p, InputShape in, const MlstmOptions& o);
  State initial(Graph& g, int64_t batch) const override { return init_.make(g, batch); }
  Step step(Graph& g, const StepInput& x, const State& s) const override;
  Var readout(const State& s) const override { return s[0]; }
  int64_t readout_size() const override { return hidden_; }
  Var memory(const State& s) const override { return s[1]; }

 private:
  int64_t hidden_;
  LstmVariant variant_;
  ParamId w_mh_, w_mx_, w_gx_, w_gm_, b_g_;
  InitialState init_;
};

ModelInfo mlstm_info();

}  // namespace tg::models
