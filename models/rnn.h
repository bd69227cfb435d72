// Standard RNN (000 §1.1 / thesis §2.5; 001 §1.1 eq 2.1; 002 §2.2; 004 §1.3):
//   u_t = x_t W_hx + h_{t-1} W_hh + b_h;   h_t = e(u_t),  e = tanh | logistic | relu.
// State {h}; u_t is the structural-damping pre-activation; the output layer reads h_t.
// Krause's RNN is this cell with a hidden bias, a zero h_0 and no output bias (001 §1.1).
#pragma once
#include "models/activation.h"
#include "models/cell.h"
#include "models/model.h"

namespace tg::models {

struct RnnOptions {
  int64_t hidden = 100;
  Activation activation = Activation::tanh;
  bool bias = true;         // b_h
  bool learned_h0 = false;  // else h_0 = 0
  double bias_scale = 0;    // b_h ~ N(0, bias_scale²); 0: zeros (000 ch. 4's sparse init draws biases from N(0, 1/15))
};

class RnnCell final : public Cell {
 public:
  RnnCell(ParamBuilder& p, InputShape in, const RnnOptions& o);
  State initial(Graph& g, int64_t batch) const override { return h0_.make(g, batch); }
  Step step(Graph& g, const StepInput& x, const State& s) const override;
  // tanh, logistic and relu units: the recurrence as one scan node (ops/scan.cc) over stacked inputs
  std::vector<Step> steps(Graph& g, std::span<const StepInput> x, const State& s) const override;
  Var readout(const State& s) const override { return s[0]; }
  int64_t readout_size() const override { return hidden_; }

 private:
  int64_t hidden_;
  Activation activation_;
  ParamId w_hx_, w_hh_, b_h_;
  InitialState h0_;
};

ModelInfo rnn_info();

}  // namespace tg::models
