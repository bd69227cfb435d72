// IRNN (Le, Jaitly & Hinton 2015, as used in Krueger's thesis, seed 004 §1.3): the standard RNN cell
// (models/rnn.h) with relu units, the recurrent matrix initialised to the identity and the hidden
// bias at 0; other weights N(0, init_scale²) with init_scale = 0.001 as in Le et al.
//   u_t = x_t W_hx + h_{t-1} W_hh + b_h,   h_t = relu(u_t)
// The zero-bias IRNN uses TRec with threshold 0, which is numerically relu, and has no hidden bias b_h
// at all: that is the whole difference (Krueger Table 5.II). The output bias stays.
#include "models/cell_model.h"
#include "models/more_models.h"
#include "models/rnn.h"

namespace tg::models {

namespace {
ModelInfo irnn_info(const std::string& name, bool bias) {
  return cell_model_info(
      name,
      bias ? "IRNN: relu RNN with identity-initialised recurrent weights (hidden bias starting at 0)"
           : "zero-bias IRNN: TRec (threshold 0) units with no hidden bias, identity-initialised recurrence",
      "004", {{"hidden", 100}, {"recurrent_init", "identity"}, {"init_scale", 0.001}}, true,
      [bias](ParamBuilder& p, const CommonOptions& c, const OptionReader& o) {
        RnnOptions r{o.size("hidden"), Activation::relu, bias, c.learned_h0};
        return std::make_unique<RnnCell>(p, c.input(), r);
      });
}
}  // namespace

void register_irnn(std::vector<ModelInfo>& r) {
  r.push_back(irnn_info("irnn", true));
  r.push_back(irnn_info("irnn_zero_bias", false));
}

}  // namespace tg::models
