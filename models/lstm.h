// The LSTM family: one cell, the variants differing only in the memory update (lstm_memory below).
// Gate pre-activations come from one fused affine map, gates in the order [i, f, o, g] (no f without
// a forget gate):   a_t = x_t W_gx + h_{t-1} W_gh + b_g   ([B, G·H])
//   i = σ(a_i + w_ci ⊙ c_{t-1}),  f = σ(a_f + w_cf ⊙ c_{t-1}),  g = tanh(a_g) (or a_g: linear cell input)
//   c_t = f ⊙ c_{t-1} + i ⊙ g     (c_{t-1} + i ⊙ g without a forget gate)
//   o = σ(a_o + w_co ⊙ c_t);   h_t = o ⊙ tanh(c_t) | tanh(c_t ⊙ o) | o ⊙ c_t
// (peephole weights w_c* only in Graves' variant). State {h, c}. The structural-damping pre-activation
// is the argument of the output tanh: c_t, or ζ_t = c_t ⊙ o for Krause's tanh(c ⊙ o) (docs/models.md).
#pragma once
#include <span>

#include "models/cell.h"
#include "models/model.h"

namespace tg::models {

struct LstmVariant {
  enum class Output {
    gate_times_tanh,  // h = o ⊙ tanh(c): the standard form (004 eq 4.9 corrected; Graves 2013)
    tanh_of_gated,    // h = tanh(c ⊙ o): Krause (001 eq 2.15)
    gate_times_cell,  // h = o ⊙ c: no output tanh (004 §1.4, Gers & Schmidhuber)
  };
  bool forget_gate = true;      // false: the 1997 LSTM (002 §2.3)
  bool peepholes = false;       // Graves 2013 (003 §1.6)
  bool tanh_cell_input = true;  // false: Krause's linear cell input (001 eq 2.11)
  Output output = Output::gate_times_tanh;
  int64_t gates() const { return forget_gate ? 4 : 3; }
};

struct LstmOptions {
  int64_t hidden = 100;
  bool bias = true;          // b_g
  double forget_bias = 1.0;  // initial value of b_g's forget slice (Sutskever: 3 to 5)
  bool learned_h0 = false;   // learned h_0 and c_0
  // The original online algorithm's truncated gradient (Hochreiter & Schmidhuber 1997; Krause §1.3,
  // Table 4.2's "LSTM online"): errors reach earlier steps only through the cell state. h_{t-1} enters
  // the gates as a constant (stop_gradient), so BPTT on this graph computes the truncated gradient the
  // algorithm's RTRL traces accumulate (its per-step weight updates are not reproduced: the trainer
  // updates once per batch). Gauss-Newton products see the same truncated linearisation.
  bool truncated_gradient = false;
  LstmVariant variant;
};

// The memory update from gate pre-activations [a_i, (a_f,) a_o, a_g] and c_{t-1}; peephole weights may
// be empty. Shared by the LSTM and the mLSTM.
struct LstmMemory {
  Var c, h, preact;
};
LstmMemory lstm_memory(const LstmVariant& v, std::span<const Var> a, Var c_prev, Var w_ci = {}, Var w_cf = {},
                       Var w_co = {});
// The same from the whole pre-activation [B, G·H]. The standard variant without peepholes runs as one
// fused op (ops::lstm_cell); the others split a and take the path above.
LstmMemory lstm_memory(const LstmVariant& v, Var a, Var c_prev, Var w_ci = {}, Var w_cf = {}, Var w_co = {});

// b_g [G·H]: zeros with the forget slice at `forget_bias`.
Init lstm_bias_init(const LstmVariant& v, int64_t hidden, double forget_bias);

class LstmCell final : public Cell {
 public:
  LstmCell(ParamBuilder& p, InputShape in, const LstmOptions& o);
  State initial(Graph& g, int64_t batch) const override { return init_.make(g, batch); }
  Step step(Graph& g, const StepInput& x, const State& s) const override;
  Var readout(const State& s) const override { return s[0]; }
  int64_t readout_size() const override { return hidden_; }
  Var memory(const State& s) const override { return s[1]; }

 private:
  int64_t hidden_;
  LstmVariant variant_;
  bool truncated_gradient_;
  ParamId w_gx_, w_gh_, b_g_, w_ci_, w_cf_, w_co_;
  InitialState init_;
};

ModelInfo lstm_info();                 // standard: forget gate, biases, forget-bias init
ModelInfo lstm_krause_info();          // linear cell input, h = tanh(c ⊙ o), no biases
ModelInfo lstm1997_info();             // no forget gate
ModelInfo lstm_peephole_info();        // Graves' peepholes
ModelInfo lstm_no_output_tanh_info();  // h = o ⊙ c

}  // namespace tg::models
