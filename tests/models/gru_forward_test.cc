// Hand-computed forward steps of the GRU (Cho et al. 2014) against the builder. W_gx holds the input
// weights [W_zx W_rx W_hx], W_gh the gates' recurrent weights [W_zh W_rh].
#include <gtest/gtest.h>

#include "tests/models/reference.h"

namespace tg::reference {
namespace {

void check_gru(const nlohmann::json& opts, double (*candidate)(double)) {
  auto m = make("gru", opts);
  models::Sequence xs = symbols({{1, 3}, {0, 2}, {2, 2}});
  const Mat w_gx = param(*m, "gru/W_gx"), w_gh = param(*m, "gru/W_gh"), w_hh = param(*m, "gru/W_hh"),
            w_oh = param(*m, "gru/W_oh");
  const Vec b_g = vec(*m, "gru/b_g"), b_o = vec(*m, "gru/b_o"), h0 = vec(*m, "gru/h0");
  const int64_t H = w_hh.rows;
  expect_matches(*m, xs, [&](int64_t b) {
    std::vector<StepRef> r;
    Vec h = h0;
    for (int64_t t = 0; t < xs.T; ++t) {
      Vec ax = add(w_gx.row((*xs.symbols[t])[b]), b_g), ah = vecmat(h, w_gh);
      Vec z = sigm(add(slice(ax, 0, H), slice(ah, 0, H)));
      Vec rr = sigm(add(slice(ax, H, H), slice(ah, H, H)));
      Vec u = add(slice(ax, 2 * H, H), vecmat(mul(rr, h), w_hh));
      Vec ht = map(u, candidate);
      Vec next(H);
      for (int64_t j = 0; j < H; ++j) next[j] = z[j] * h[j] + (1 - z[j]) * ht[j];  // Cho et al. eq 7
      h = next;
      r.push_back({u, h, add(vecmat(h, w_oh), b_o)});
    }
    return r;
  });
}

TEST(GruForward, ChoEquations) { check_gru({{"vocab", 4}, {"hidden", 3}, {"learned_h0", true}}, tanh_); }
TEST(GruForward, LogisticCandidateAsPrintedInGalvan) {
  check_gru({{"vocab", 4}, {"hidden", 3}, {"learned_h0", true}, {"candidate", "logistic"}}, sigm);
}

}  // namespace
}  // namespace tg::reference
