// Hand-computed forward steps of every LSTM variant against the builder. Fused gate matrices hold
// the gates in the order [i, f, o, g] (no f without a forget gate), H columns each.
#include <gtest/gtest.h>

#include "core/ad.h"
#include "models/lstm.h"
#include "gradcheck/gradcheck.h"
#include "tests/models/reference.h"

namespace tg::reference {
namespace {

struct Lstm {
  Mat w_gx, w_gh, w_oh;
  Vec b_g, b_o, h0, c0;
  int64_t H;
};
Lstm read_lstm(const models::Model& m, const std::string& s, int64_t H, bool bias, bool out_bias, bool learned) {
  Lstm l{param(m, s + "/W_gx"), param(m, s + "/W_gh"), param(m, s + "/W_oh"), {}, {}, Vec(H, 0.0), Vec(H, 0.0), H};
  const int64_t G = l.w_gh.cols / H;
  l.b_g = bias ? vec(m, s + "/b_g") : Vec(G * H, 0.0);
  l.b_o = out_bias ? vec(m, s + "/b_o") : Vec(l.w_oh.cols, 0.0);
  if (learned) {
    l.h0 = vec(m, s + "/h0");
    l.c0 = vec(m, s + "/c0");
  }
  return l;
}
Vec gate(const Vec& a, int64_t k, int64_t H) { return slice(a, k * H, H); }

const models::Sequence kInputs = symbols({{1, 3}, {0, 2}, {2, 2}});

TEST(LstmForward, StandardForgetGateAndOutputTanh) {
  auto m = make("lstm", {{"vocab", 4}, {"hidden", 3}, {"learned_h0", true}});
  const Lstm l = read_lstm(*m, "lstm", 3, true, true, true);
  expect_matches(*m, kInputs, [&](int64_t b) {
    std::vector<StepRef> r;
    Vec h = l.h0, c = l.c0;
    for (int64_t t = 0; t < kInputs.T; ++t) {
      Vec a = add(add(l.w_gx.row((*kInputs.symbols[t])[b]), vecmat(h, l.w_gh)), l.b_g);
      Vec i = sigm(gate(a, 0, 3)), f = sigm(gate(a, 1, 3)), o = sigm(gate(a, 2, 3)), g = tanh(gate(a, 3, 3));
      c = add(mul(f, c), mul(i, g));
      h = mul(o, tanh(c));
      r.push_back({c, h, add(vecmat(h, l.w_oh), l.b_o)});
    }
    return r;
  });
}

TEST(LstmForward, KrauseLinearCellInputAndTanhOfGatedCell) {
  auto m = make("lstm_krause", {{"vocab", 4}, {"hidden", 3}});
  EXPECT_FALSE(m->params().find("lstm_krause/b_g")) << "Krause's LSTM has no biases";
  EXPECT_FALSE(m->params().find("lstm_krause/b_o"));
  const Lstm l = read_lstm(*m, "lstm_krause", 3, false, false, false);
  expect_matches(*m, kInputs, [&](int64_t b) {
    std::vector<StepRef> r;
    Vec h = l.h0, c = l.c0;
    for (int64_t t = 0; t < kInputs.T; ++t) {
      Vec a = add(l.w_gx.row((*kInputs.symbols[t])[b]), vecmat(h, l.w_gh));
      Vec omega = sigm(gate(a, 0, 3)), phi = sigm(gate(a, 1, 3)), rho = sigm(gate(a, 2, 3));
      Vec h_in = gate(a, 3, 3);                      // linear (001 eq 2.11)
      c = add(mul(phi, c), mul(omega, h_in));        // H_state
      Vec zeta = mul(c, rho);                        // ζ = H_state ⊙ ρ
      h = tanh(zeta);                                // H_out = tanh(ζ) (001 eq 2.15)
      r.push_back({zeta, h, vecmat(h, l.w_oh)});
    }
    return r;
  });
}

TEST(LstmForward, Original1997WithoutForgetGate) {
  auto m = make("lstm1997", {{"vocab", 4}, {"hidden", 3}, {"bias", true}});
  const Lstm l = read_lstm(*m, "lstm1997", 3, true, true, false);
  EXPECT_EQ(l.w_gh.cols, 9) << "three gate blocks: i, o, g";
  expect_matches(*m, kInputs, [&](int64_t b) {
    std::vector<StepRef> r;
    Vec h = l.h0, c = l.c0;
    for (int64_t t = 0; t < kInputs.T; ++t) {
      Vec a = add(add(l.w_gx.row((*kInputs.symbols[t])[b]), vecmat(h, l.w_gh)), l.b_g);
      Vec u = sigm(gate(a, 0, 3)), o = sigm(gate(a, 1, 3)), g = tanh(gate(a, 2, 3));
      c = add(c, mul(u, g));  // m_t = a_t u_t + 1 · m_{t-1} (002 eq 2.4)
      h = mul(o, tanh(c));
      r.push_back({c, h, add(vecmat(h, l.w_oh), l.b_o)});
    }
    return r;
  });
}

TEST(LstmForward, GravesPeepholes) {
  auto m = make("lstm_peephole", {{"vocab", 4}, {"hidden", 3}, {"learned_h0", true}});
  const Lstm l = read_lstm(*m, "lstm_peephole", 3, true, true, true);
  const Vec w_ci = vec(*m, "lstm_peephole/w_ci"), w_cf = vec(*m, "lstm_peephole/w_cf"),
            w_co = vec(*m, "lstm_peephole/w_co");
  expect_matches(*m, kInputs, [&](int64_t b) {
    std::vector<StepRef> r;
    Vec h = l.h0, c = l.c0;
    for (int64_t t = 0; t < kInputs.T; ++t) {
      Vec a = add(add(l.w_gx.row((*kInputs.symbols[t])[b]), vecmat(h, l.w_gh)), l.b_g);
      Vec i = sigm(add(gate(a, 0, 3), mul(w_ci, c)));  // peeks at c_{t-1}
      Vec f = sigm(add(gate(a, 1, 3), mul(w_cf, c)));
      c = add(mul(f, c), mul(i, tanh(gate(a, 3, 3))));
      Vec o = sigm(add(gate(a, 2, 3), mul(w_co, c)));  // peeks at c_t
      h = mul(o, tanh(c));
      r.push_back({c, h, add(vecmat(h, l.w_oh), l.b_o)});
    }
    return r;
  });
}

TEST(LstmForward, NoOutputTanh) {
  auto m = make("lstm_no_output_tanh", {{"vocab", 4}, {"hidden", 3}});
  const Lstm l = read_lstm(*m, "lstm_no_output_tanh", 3, true, true, false);
  expect_matches(*m, kInputs, [&](int64_t b) {
    std::vector<StepRef> r;
    Vec h = l.h0, c = l.c0;
    for (int64_t t = 0; t < kInputs.T; ++t) {
      Vec a = add(add(l.w_gx.row((*kInputs.symbols[t])[b]), vecmat(h, l.w_gh)), l.b_g);
      Vec i = sigm(gate(a, 0, 3)), f = sigm(gate(a, 1, 3)), o = sigm(gate(a, 2, 3)), g = tanh(gate(a, 3, 3));
      c = add(mul(f, c), mul(i, g));
      h = mul(o, c);  // 004 §1.4: h = o ⊙ c
      r.push_back({c, h, add(vecmat(h, l.w_oh), l.b_o)});
    }
    return r;
  });
}

TEST(LstmForward, SutskeverGatesReadCurrentHiddenAndPreviousGatedMemory) {
  auto m = make("lstm_sutskever", {{"vocab", 4}, {"hidden", 3}, {"cells", 2}, {"learned_h0", true}});
  const std::string s = "lstm_sutskever/";
  const Mat w_hx = param(*m, s + "W_hx"), w_hh = param(*m, s + "W_hh"), w_hm = param(*m, s + "W_hm"),
            w_gx = param(*m, s + "W_gx"), w_gh = param(*m, s + "W_gh"), w_gm = param(*m, s + "W_gm"),
            w_oh = param(*m, s + "W_oh");
  const Vec b_f = vec(*m, s + "b_f"), b_o = vec(*m, s + "b_o");
  const Vec h0 = vec(*m, s + "h0"), m0 = vec(*m, s + "m0"), mg0 = vec(*m, s + "m_gated0");
  EXPECT_FALSE(m->params().find(s + "b_g")) << "only the forget gate has a bias by default";
  expect_matches(*m, kInputs, [&](int64_t b) {
    std::vector<StepRef> r;
    Vec h = h0, mem = m0, mg = mg0;
    for (int64_t t = 0; t < kInputs.T; ++t) {
      const int32_t x = (*kInputs.symbols[t])[b];
      Vec u = add(add(w_hx.row(x), vecmat(h, w_hh)), vecmat(mg, w_hm));  // eq 2.37
      h = tanh(u);
      Vec a = add(add(w_gx.row(x), vecmat(h, w_gh)), vecmat(mg, w_gm));  // gates read h_t and m̃_{t-1}
      Vec ig = sigm(gate(a, 0, 2)), f = sigm(add(b_f, gate(a, 1, 2))), o = sigm(gate(a, 2, 2)), i = tanh(gate(a, 3, 2));
      mem = add(mul(mem, f), mul(i, ig));  // eq 2.42
      mg = mul(mem, o);                    // eq 2.43
      Vec readout = cat(h, mg);            // z = W_yh h + W_ym m̃ (eq 2.44)
      r.push_back({u, readout, add(vecmat(readout, w_oh), b_o)});
    }
    return r;
  });
}

TEST(LstmForward, ForgetBiasInitialValue) {
  const models::ModelInfo& info = models::find("lstm");
  Rng rng(1);
  auto m = info.make(models::resolve(info, {{"vocab", 4}, {"hidden", 3}, {"forget_bias", 2.5}}), DType::f64, rng);
  const Vec b = vec(*m, "lstm/b_g");
  for (int64_t j = 0; j < 12; ++j) EXPECT_EQ(b[j], j >= 3 && j < 6 ? 2.5 : 0.0) << j;
  auto s = models::find("lstm_sutskever").make(models::resolve(models::find("lstm_sutskever"), {{"vocab", 4}}),
                                               DType::f64, rng);
  for (double v : vec(*s, "lstm_sutskever/b_f")) EXPECT_EQ(v, 3.0);  // "added 3.0 to the biases of the forget gates"
}

// The standard cell runs fused (ops::lstm_cell); the general path builds it from ordinary ops. Both
// must give one memory update: values and gradients, float32, to float tolerance.
TEST(LstmForward, FusedStandardCellMatchesTheGeneralPath) {
  const int64_t B = 5, H = 19;
  const models::LstmVariant v;
  Graph g;
  auto data = [&](Shape s, double lo, double hi, uint64_t seed) {
    return g.input(check::random_inputs({s}, lo, hi, seed)[0].astype(DType::f32));
  };
  Var a = data({B, 4 * H}, -3, 3, 11), c_prev = data({B, H}, -2, 2, 12);
  const models::LstmMemory fused = models::lstm_memory(v, a, c_prev);
  const std::vector<Var> gates = ops::split(a, 1, 4);
  const models::LstmMemory plain = models::lstm_memory(v, std::span<const Var>(gates), c_prev);
  EXPECT_NE(g.node(fused.h.id()).prim, g.node(plain.h.id()).prim) << "the two paths should differ";
  Var wc = data({B, H}, -1, 1, 13), wh = data({B, H}, -1, 1, 14);
  auto loss = [&](const models::LstmMemory& m) { return ops::sum(m.c * wc + m.h * wh + ops::square(m.preact)); };
  const Var wrt[] = {a, c_prev};
  const std::vector<Var> gf = ad::grad(loss(fused), wrt), gp = ad::grad(loss(plain), wrt);
  auto close = [](Var x, Var y, const char* what) {
    for (int64_t k = 0; k < x.value().size(); ++k)
      ASSERT_NEAR(x.value().at(k), y.value().at(k), 2e-6) << what << " at " << k;
  };
  close(fused.c, plain.c, "c");
  close(fused.h, plain.h, "h");
  close(gf[0], gp[0], "d/da");
  close(gf[1], gp[1], "d/dc_prev");
}

}  // namespace
}  // namespace tg::reference
