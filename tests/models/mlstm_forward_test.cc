// Hand-computed forward steps of the multiplicative LSTM (001 §1.7, eqs 4.7-4.10) against the builder.
#include <gtest/gtest.h>

#include "tests/models/reference.h"

namespace tg::reference {
namespace {

Vec gate(const Vec& a, int64_t k, int64_t H) { return slice(a, k * H, H); }

void check_mlstm(const nlohmann::json& opts, bool krause_memory, bool bias) {
  auto m = make("mlstm", opts);
  models::Sequence xs = symbols({{1, 3}, {0, 2}, {2, 2}});
  const Mat w_mh = param(*m, "mlstm/W_mh"), w_mx = param(*m, "mlstm/W_mx"), w_gx = param(*m, "mlstm/W_gx"),
            w_gm = param(*m, "mlstm/W_gm"), w_oh = param(*m, "mlstm/W_oh");
  const int64_t H = w_mh.rows;
  const Vec b_g = bias ? vec(*m, "mlstm/b_g") : Vec(4 * H, 0.0);
  const Vec h0 = opts.value("learned_h0", false) ? vec(*m, "mlstm/h0") : Vec(H, 0.0);
  const Vec c0 = opts.value("learned_h0", false) ? vec(*m, "mlstm/c0") : Vec(H, 0.0);
  expect_matches(*m, xs, [&](int64_t b) {
    std::vector<StepRef> r;
    Vec h = h0, c = c0;
    for (int64_t t = 0; t < xs.T; ++t) {
      const int32_t x = (*xs.symbols[t])[b];
      Vec mf = mul(vecmat(h, w_mh), w_mx.row(x));           // M = (W_mh H_out) ⊙ (W_mi I)
      Vec a = add(add(w_gx.row(x), vecmat(mf, w_gm)), b_g);  // gates and H_in read I and M only
      Vec i = sigm(gate(a, 0, H)), f = sigm(gate(a, 1, H)), o = sigm(gate(a, 2, H));
      Vec g = krause_memory ? gate(a, 3, H) : tanh(gate(a, 3, H));
      c = add(mul(f, c), mul(i, g));
      Vec pre = krause_memory ? mul(c, o) : c;
      h = krause_memory ? tanh(pre) : mul(o, tanh(c));
      Vec z = vecmat(h, w_oh);
      if (m->params().find("mlstm/b_o")) z = add(z, vec(*m, "mlstm/b_o"));
      r.push_back({pre, h, z});
    }
    return r;
  });
}

TEST(MlstmForward, KrauseDefaults) { check_mlstm({{"vocab", 4}, {"hidden", 3}, {"factors", 5}, {"learned_h0", true}}, true, false); }

TEST(MlstmForward, TanhCellInputAndOutputGateOutsideWithBiases) {
  check_mlstm({{"vocab", 4}, {"hidden", 3}, {"cell_input", "tanh"}, {"output_gate", "outside"}, {"bias", true},
               {"output_bias", true}},
              false, true);
}

}  // namespace
}  // namespace tg::reference
