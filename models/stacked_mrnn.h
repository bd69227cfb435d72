// Stacked mRNN (001 §1.6, eqs 4.4-4.6): L mRNN layers, each with direct input and output connections,
// layer l also reading layer l-1 at the same step:
//   f_l = (x_t W_fx_l) ⊙ (h_l(t-1) W_fh_l);   u_l = f_l W_hf_l + x_t W_hx_l + h_{l-1}(t) W_hb_l + b_h_l
//   h_l(t) = tanh(u_l);   z_t = Σ_l h_l(t) W_oh_l = [h_1 … h_L] W_oh
// State {h_1, …, h_L}; the tagged pre-activation is [u_1 … u_L] and the output reads [h_1 … h_L].
#pragma once
#include <vector>

#include "models/cell.h"
#include "models/model.h"
#include "models/mrnn.h"

namespace tg::models {

class StackedMrnnCell final : public Cell {
 public:
  // One MrnnOptions per layer, bottom first.
  StackedMrnnCell(ParamBuilder& p, InputShape in, const std::vector<MrnnOptions>& layers);
  State initial(Graph& g, int64_t batch) const override;
  Step step(Graph& g, const StepInput& x, const State& s) const override;
  Var readout(const State& s) const override;
  int64_t readout_size() const override { return readout_size_; }

 private:
  std::vector<MrnnCell> layers_;
  std::vector<ParamId> w_hb_;  // layer l-1 -> l (same step), for l >= 1
  int64_t readout_size_ = 0;
};

ModelInfo stacked_mrnn_info();

}  // namespace tg::models
