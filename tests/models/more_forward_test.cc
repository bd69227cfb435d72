// Part-B models against hand-computed forward steps (plain loops, tiny sizes, float64), the GLNN and
// classical-RNN initialisation recipes of seed 003 §2, and the ESN's fixed reservoir.
#include <gtest/gtest.h>

#include <cmath>

#include <fmt/format.h>

#include "models/init.h"
#include "models/more_models.h"
#include "models/ollivier.h"
#include "tests/models/more_fixtures.h"

namespace tg {
namespace {

using namespace testing_more;  // NOLINT
using Vec = std::vector<double>;
using models::Outputs;
using models::Sequence;

constexpr int64_t T = 3, B = 2, A = 3;

struct Unrolled {
  std::unique_ptr<Graph> g = std::make_unique<Graph>();
  Outputs out;
};
Unrolled unroll(const models::Model& m, const Sequence& xs) {
  Unrolled r;
  r.out = m.unroll(*r.g, xs);
  return r;
}

int sym(const Sequence& xs, int64_t t, int64_t b) { return (*xs.symbols[t])[b]; }
bool real(const Sequence& xs, int64_t t, int64_t b) { return xs.mask.empty() || xs.mask[t].at(b) != 0; }

// Compares the builder's logits (and optionally preacts) at every step with the hand-computed ones.
void expect_near(const std::vector<Var>& got, const std::vector<Vec>& want, const char* what) {
  ASSERT_EQ(got.size(), want.size());
  for (size_t t = 0; t < got.size(); ++t) {
    Vec v = got[t].value().to_vector();
    ASSERT_EQ(v.size(), want[t].size()) << what << " step " << t;
    for (size_t k = 0; k < v.size(); ++k) EXPECT_NEAR(v[k], want[t][k], 1e-12) << what << " step " << t << " entry " << k;
  }
}

// ---- SCRN ------------------------------------------------------------------------------------------

void check_scrn(const std::string& name, bool learned) {
  const int64_t H = 3, S = 2, O = 3;
  auto m = make_model(name, {{"vocab", A}, {"hidden", H}, {"context", S}, {"out", O}, {"alpha", 0.7}, {"learned_h0", true}},
                      DType::f64, 1);
  Sequence xs = symbols(T, B, A, /*pad=*/true);
  Unrolled r = unroll(*m, xs);
  const std::string p = name + "/";
  Vec Bw = values(*m, p + "B"), Aw = values(*m, p + "A"), R = values(*m, p + "R"), P = values(*m, p + "P"),
      W_oh = values(*m, p + "W_oh"), bh = values(*m, p + "b_h"), by = values(*m, p + "b_o"),
      h0 = values(*m, p + "h0"), s0 = values(*m, p + "s0");
  Vec q(S, 0.7);
  if (learned) {
    Vec beta = values(*m, p + "beta");
    for (int64_t k = 0; k < S; ++k) q[k] = sigmoid(beta[k]);
  }
  std::vector<Vec> logits(T, Vec(B * O)), pre(T, Vec(B * H));
  for (int64_t b = 0; b < B; ++b) {
    Vec h = h0, s = s0;
    for (int64_t t = 0; t < T; ++t) {
      const int x = sym(xs, t, b);
      Vec sn(S), hn(H);
      for (int64_t k = 0; k < S; ++k) sn[k] = (1 - q[k]) * Bw[x * S + k] + q[k] * s[k];
      for (int64_t j = 0; j < H; ++j) {
        double u = Aw[x * H + j] + bh[j];
        for (int64_t k = 0; k < S; ++k) u += sn[k] * P[k * H + j];
        for (int64_t i = 0; i < H; ++i) u += h[i] * R[i * H + j];
        pre[t][b * H + j] = u;
        hn[j] = sigmoid(u);
      }
      if (real(xs, t, b)) h = hn, s = sn;
      for (int64_t y = 0; y < O; ++y) {
        double z = by[y];
        for (int64_t j = 0; j < H; ++j) z += h[j] * W_oh[j * O + y];  // W_oh = [U; V]
        for (int64_t k = 0; k < S; ++k) z += s[k] * W_oh[(H + k) * O + y];
        logits[t][b * O + y] = z;
      }
    }
  }
  expect_near(r.out.logits, logits, "logits");
  expect_near(r.out.preact, pre, "preact");
  EXPECT_EQ(r.out.hidden[0].shape(), (Shape{B, H + S}));
  EXPECT_EQ(r.g->tagged("logits").size(), static_cast<size_t>(T));
  EXPECT_EQ(r.g->tagged("preact").size(), static_cast<size_t>(T));
}

TEST(MoreForward, ScrnFixedAlpha) {
  check_scrn("scrn", false);
  auto m = make_model("scrn", {{"vocab", A}, {"hidden", 3}, {"context", 2}, {"out", 3}}, DType::f64, 1, 0);
  EXPECT_FALSE(m->params().find("scrn/beta").has_value()) << "fixed alpha is not a parameter";
}
TEST(MoreForward, ScrnLearnedAlpha) {
  check_scrn("scrn_learned", true);
  auto m = make_model("scrn_learned", {{"vocab", A}, {"hidden", 3}, {"context", 2}, {"out", 3}, {"alpha", 0.9}},
                      DType::f64, 1, 0);
  for (double b : values(*m, "scrn_learned/beta")) EXPECT_NEAR(sigmoid(b), 0.9, 1e-12) << "beta starts at logit(alpha)";
}

// ---- IRNN ------------------------------------------------------------------------------------------

void check_irnn(const std::string& name, bool bias) {
  const int64_t H = 3, O = 2;
  json cfg = {{"vocab", A}, {"hidden", H}, {"out", O}, {"output", "softmax"}, {"learned_h0", true}};
  auto fresh = make_model(name, cfg, DType::f64, 2, 0);
  Vec whh0 = values(*fresh, name + "/W_hh");
  for (int64_t i = 0; i < H; ++i)
    for (int64_t j = 0; j < H; ++j) EXPECT_EQ(whh0[i * H + j], i == j ? 1.0 : 0.0) << "identity init";
  EXPECT_EQ(fresh->params().find(name + "/b_h").has_value(), bias);

  auto m = make_model(name, cfg, DType::f64, 2);
  Sequence xs = symbols(T, B, A, true);
  Unrolled r = unroll(*m, xs);
  Vec Wx = values(*m, name + "/W_hx"), Wh = values(*m, name + "/W_hh"), Wy = values(*m, name + "/W_oh"),
      by = values(*m, name + "/b_o"), h0 = values(*m, name + "/h0");
  Vec bh = bias ? values(*m, name + "/b_h") : Vec(H, 0.0);
  std::vector<Vec> logits(T, Vec(B * O));
  for (int64_t b = 0; b < B; ++b) {
    Vec h = h0;
    for (int64_t t = 0; t < T; ++t) {
      Vec hn(H);
      for (int64_t j = 0; j < H; ++j) {
        double u = Wx[sym(xs, t, b) * H + j] + bh[j];
        for (int64_t i = 0; i < H; ++i) u += h[i] * Wh[i * H + j];
        hn[j] = u > 0 ? u : 0;
      }
      if (real(xs, t, b)) h = hn;
      for (int64_t y = 0; y < O; ++y) {
        double z = by[y];
        for (int64_t j = 0; j < H; ++j) z += h[j] * Wy[j * O + y];
        logits[t][b * O + y] = z;
      }
    }
  }
  expect_near(r.out.logits, logits, "logits");
}
TEST(MoreForward, Irnn) { check_irnn("irnn", true); }
TEST(MoreForward, IrnnZeroBias) { check_irnn("irnn_zero_bias", false); }

// ---- ESN -------------------------------------------------------------------------------------------

TEST(MoreForward, EsnFixedReservoirTrainableReadout) {
  const int64_t H = 5, O = 2;
  const double alpha = 0.3;
  auto m = make_model("esn", {{"vocab", A}, {"in", 0}, {"reservoir", H}, {"out", O}, {"alpha", alpha}, {"degree", 3},
                              {"spectral_radius", 0.9}, {"bias_scale", 0.2}, {"learned_h0", true}},
                      DType::f64, 3);
  ASSERT_EQ(m->params().count(), 3) << "only W_out, b_out and h0 are parameters";
  const models::EsnReservoir& res = models::esn_reservoir(*m);
  EXPECT_NEAR(models::init::spectral_radius(res.W), 0.9, 1e-9);
  Vec Win = res.W_in.to_vector(), W = res.W.to_vector(), bb = res.b.to_vector();
  for (int64_t j = 0; j < H; ++j) {
    int nz = 0;
    for (int64_t i = 0; i < H; ++i) nz += W[i * H + j] != 0;
    EXPECT_EQ(nz, 3) << "sparse reservoir: `degree` incoming weights per unit";
  }
  Sequence xs = symbols(T, B, A, true);
  Unrolled r = unroll(*m, xs);
  Vec Wo = values(*m, "esn/W_out"), bo = values(*m, "esn/b_out"), h0 = values(*m, "esn/h0");
  std::vector<Vec> logits(T, Vec(B * O));
  for (int64_t b = 0; b < B; ++b) {
    Vec h = h0;
    for (int64_t t = 0; t < T; ++t) {
      Vec hn(H);
      for (int64_t j = 0; j < H; ++j) {
        double u = Win[sym(xs, t, b) * H + j] + bb[j];
        for (int64_t i = 0; i < H; ++i) u += h[i] * W[i * H + j];
        hn[j] = alpha * h[j] + (1 - alpha) * std::tanh(u);
      }
      if (real(xs, t, b)) h = hn;
      for (int64_t y = 0; y < O; ++y) {
        double z = bo[y];
        for (int64_t j = 0; j < H; ++j) z += h[j] * Wo[j * O + y];
        logits[t][b * O + y] = z;
      }
    }
  }
  expect_near(r.out.logits, logits, "logits");
}

// ---- wrappers and gated feedback ----------------------------------------------------------------------

// v M for a row vector v and a row-major M [v.size(), cols].
Vec vm(const Vec& v, const Vec& M, int64_t cols, int64_t col0 = 0, int64_t ncols = -1) {
  if (ncols < 0) ncols = cols - col0;
  Vec r(ncols, 0.0);
  for (size_t i = 0; i < v.size(); ++i)
    for (int64_t j = 0; j < ncols; ++j) r[j] += v[i] * M[i * cols + col0 + j];
  return r;
}
Vec row(const Vec& M, int64_t cols, int64_t r) { return Vec(M.begin() + r * cols, M.begin() + (r + 1) * cols); }
Vec add(Vec a, const Vec& b) {
  for (size_t i = 0; i < a.size(); ++i) a[i] += b[i];
  return a;
}

// One tanh RNN step by hand.
Vec rnn_step(const models::Model& m, const std::string& p, const Vec& in, const Vec& h, bool symbol, int x) {
  Vec Wx = values(m, p + "W_hx"), Wh = values(m, p + "W_hh"), b = values(m, p + "b_h");
  const int64_t H = static_cast<int64_t>(b.size());
  Vec u = add(add(symbol ? row(Wx, H, x) : vm(in, Wx, H), vm(h, Wh, H)), b);
  for (double& v : u) v = std::tanh(v);
  return u;
}

TEST(MoreForward, StackedRnn) {
  auto m = make_model("stacked", {{"vocab", A}, {"out", 2}, {"cell", "rnn"}, {"layers", {3, 2}}, {"learned_h0", true}},
                      DType::f64, 13);
  Sequence xs = symbols(T, B, A, true);
  Unrolled r = unroll(*m, xs);
  Vec Wo = values(*m, "stacked/W_oh"), bo = values(*m, "stacked/b_o");
  std::vector<Vec> logits(T, Vec(B * 2));
  for (int64_t b = 0; b < B; ++b) {
    Vec h1 = values(*m, "stacked/l1/h0"), h2 = values(*m, "stacked/l2/h0");
    for (int64_t t = 0; t < T; ++t) {
      Vec n1 = rnn_step(*m, "stacked/l1/", {}, h1, true, sym(xs, t, b));
      Vec n2 = rnn_step(*m, "stacked/l2/", n1, h2, false, 0);
      if (real(xs, t, b)) h1 = n1, h2 = n2;
      Vec z = add(vm(h2, Wo, 2), bo);
      for (int64_t y = 0; y < 2; ++y) logits[t][b * 2 + y] = z[y];
    }
  }
  expect_near(r.out.logits, logits, "logits");
  EXPECT_EQ(r.out.preact[0].shape(), (Shape{B, 5})) << "both layers' pre-activations";
}

TEST(MoreForward, BidirectionalRnn) {
  auto m = make_model("bidirectional", {{"vocab", A}, {"out", 2}, {"cell", "rnn"}, {"layers", {3}}, {"learned_h0", true}},
                      DType::f64, 14);
  Sequence xs = symbols(T, B, A, true);  // sequence 1 is one step shorter (trailing padding)
  Unrolled r = unroll(*m, xs);
  Vec Wo = values(*m, "bidirectional/W_oh"), bo = values(*m, "bidirectional/b_o");
  std::vector<Vec> logits(T, Vec(B * 2));
  for (int64_t b = 0; b < B; ++b) {
    std::vector<Vec> hf(T), hb(T);
    Vec h = values(*m, "bidirectional/fwd/l1/h0");
    for (int64_t t = 0; t < T; ++t) {
      Vec n = rnn_step(*m, "bidirectional/fwd/l1/", {}, h, true, sym(xs, t, b));
      if (real(xs, t, b)) h = n;
      hf[t] = h;
    }
    h = values(*m, "bidirectional/bwd/l1/h0");
    for (int64_t t = T - 1; t >= 0; --t) {
      Vec n = rnn_step(*m, "bidirectional/bwd/l1/", {}, h, true, sym(xs, t, b));
      if (real(xs, t, b)) h = n;
      hb[t] = h;
    }
    Vec both;
    for (int64_t t = 0; t < T; ++t) {
      if (t == 0 || real(xs, t, b)) {  // a padded step repeats the last readout
        both = hf[t];
        both.insert(both.end(), hb[t].begin(), hb[t].end());
      }
      Vec z = add(vm(both, Wo, 2), bo);
      for (int64_t y = 0; y < 2; ++y) logits[t][b * 2 + y] = z[y];
    }
  }
  expect_near(r.out.logits, logits, "logits");
}

// Graves' deep bidirectional net: layer 2's forward and backward cells both read [h→_t, h←_t] of layer 1
// (the `bidirectional` wrapper's layer 2 reads only its own direction); written out with trailing padding.
TEST(MoreForward, DeepBidirectionalRnn) {
  auto m = make_model("deep_blstm", {{"vocab", A}, {"out", 2}, {"cell", "rnn"}, {"layers", {3, 2}}, {"learned_h0", true}},
                      DType::f64, 16);
  Sequence xs = symbols(T, B, A, true);  // sequence 1 is one step shorter (trailing padding)
  Unrolled r = unroll(*m, xs);
  Vec Wo = values(*m, "deep_blstm/W_oh"), bo = values(*m, "deep_blstm/b_o");
  std::vector<Vec> logits(T, Vec(B * 2));
  for (int64_t b = 0; b < B; ++b) {
    // one direction of one layer over the steps; `in` the layer's input per step (empty: the symbols)
    auto pass = [&](const std::string& p, const std::vector<Vec>& in, bool forward) {
      std::vector<Vec> out(T);
      Vec h = values(*m, p + "h0");
      for (int64_t k = 0; k < T; ++k) {
        const int64_t t = forward ? k : T - 1 - k;
        Vec n = in.empty() ? rnn_step(*m, p, {}, h, true, sym(xs, t, b)) : rnn_step(*m, p, in[t], h, false, 0);
        if (real(xs, t, b)) h = n;
        out[t] = h;
      }
      return out;
    };
    auto join = [&](const std::vector<Vec>& f, const std::vector<Vec>& k) {
      std::vector<Vec> both(T);
      for (int64_t t = 0; t < T; ++t) {
        both[t] = f[t];
        both[t].insert(both[t].end(), k[t].begin(), k[t].end());
      }
      return both;
    };
    const std::vector<Vec> l1 = join(pass("deep_blstm/l1/fwd/", {}, true), pass("deep_blstm/l1/bwd/", {}, false));
    const std::vector<Vec> l2 = join(pass("deep_blstm/l2/fwd/", l1, true), pass("deep_blstm/l2/bwd/", l1, false));
    Vec shown;
    for (int64_t t = 0; t < T; ++t) {
      if (t == 0 || real(xs, t, b)) shown = l2[t];  // a padded step repeats the last readout
      Vec z = add(vm(shown, Wo, 2), bo);
      for (int64_t y = 0; y < 2; ++y) logits[t][b * 2 + y] = z[y];
    }
  }
  expect_near(r.out.logits, logits, "logits");
  EXPECT_EQ(values(*m, "deep_blstm/l2/fwd/W_hx").size(), 6u * 2u) << "layer 2 reads both directions (3 + 3 units)";
}

void check_gated_feedback(const std::string& cell) {
  SCOPED_TRACE(cell);
  const std::vector<int64_t> n = {3, 2};
  const int64_t L = 2, tot = 5, O = 2;
  auto m = make_model("gated_feedback",
                      {{"vocab", A}, {"out", O}, {"cell", cell}, {"layers", {3, 2}}, {"learned_h0", true}}, DType::f64, 15);
  Sequence xs = symbols(T, B, A, true);
  Unrolled r = unroll(*m, xs);
  auto P = [&](int64_t j, const std::string& name) { return values(*m, fmt::format("gated_feedback/l{}/{}", j + 1, name)); };
  Vec Wo = values(*m, "gated_feedback/W_oh"), bo = values(*m, "gated_feedback/b_o");
  std::vector<Vec> logits(T, Vec(B * O));
  for (int64_t b = 0; b < B; ++b) {
    std::vector<Vec> h(L), c(L);
    for (int64_t j = 0; j < L; ++j) {
      h[j] = P(j, "h0");
      if (cell == "lstm") c[j] = P(j, "c0");
    }
    for (int64_t t = 0; t < T; ++t) {
      Vec hstar = h[0];
      hstar.insert(hstar.end(), h[1].begin(), h[1].end());
      std::vector<Vec> hn(L), cn(L);
      for (int64_t j = 0; j < L; ++j) {
        const int64_t G = cell == "tanh" ? 1 : cell == "lstm" ? 4 : 3, nj = n[j];
        auto below = [&](const Vec& W, int64_t cols) { return j == 0 ? row(W, cols, sym(xs, t, b)) : vm(hn[j - 1], W, cols); };
        Vec gates = add(below(P(j, "W_g"), L), vm(hstar, P(j, "U_g"), L));
        Vec gated;
        for (int64_t i = 0; i < L; ++i)
          for (double v : h[i]) gated.push_back(sigmoid(gates[i]) * v);
        Vec fb = vm(gated, P(j, "U_f"), nj);
        Vec a = add(below(P(j, "W_x"), G * nj), P(j, "b"));
        hn[j].assign(nj, 0.0);
        if (cell == "tanh") {
          for (int64_t k = 0; k < nj; ++k) hn[j][k] = std::tanh(a[k] + fb[k]);
        } else if (cell == "lstm") {
          Vec ah = vm(h[j], P(j, "U_self"), 3 * nj);
          cn[j].assign(nj, 0.0);
          for (int64_t k = 0; k < nj; ++k) {
            double ig = sigmoid(a[k] + ah[k]), fg = sigmoid(a[nj + k] + ah[nj + k]), og = sigmoid(a[2 * nj + k] + ah[2 * nj + k]);
            cn[j][k] = fg * c[j][k] + ig * std::tanh(a[3 * nj + k] + fb[k]);
            hn[j][k] = og * std::tanh(cn[j][k]);
          }
        } else {
          Vec ah = vm(h[j], P(j, "U_self"), 2 * nj);
          for (int64_t k = 0; k < nj; ++k) {
            double z = sigmoid(a[k] + ah[k]), rr = sigmoid(a[nj + k] + ah[nj + k]);
            hn[j][k] = z * h[j][k] + (1 - z) * std::tanh(a[2 * nj + k] + rr * fb[k]);
          }
        }
      }
      if (real(xs, t, b)) h = hn, c = cn;
      Vec z = add(vm(h[L - 1], Wo, O), bo);
      for (int64_t y = 0; y < O; ++y) logits[t][b * O + y] = z[y];
    }
  }
  (void)tot;
  expect_near(r.out.logits, logits, "logits");
}
TEST(MoreForward, GatedFeedbackTanh) { check_gated_feedback("tanh"); }
TEST(MoreForward, GatedFeedbackLstm) { check_gated_feedback("lstm"); }
TEST(MoreForward, GatedFeedbackGru) { check_gated_feedback("gru"); }

// ---- Ollivier's family ---------------------------------------------------------------------------

const models::ollivier::UnitGraph& graph_of(const models::Model& m) {
  return dynamic_cast<const models::ollivier::GraphModel&>(m).graph();
}

json ollivier_cfg(const std::string& graph, int64_t units = 4, int64_t degree = 2) {
  return {{"vocab", A}, {"out", 2}, {"units", units}, {"degree", degree}, {"graph", graph}};
}

enum class Kind { glnn, gnn, rnn };

// The paper's equations with a dense loop over (i, j) and an edge lookup: a missing edge has weight 0.
std::vector<Vec> ollivier_logits(const models::Model& m, const Sequence& xs, Kind kind, std::vector<Vec>* pre) {
  const std::string p = m.kind() + "/";
  const auto& gr = graph_of(m);
  const int64_t N = gr.n, E = gr.edges();
  auto edge = [&](int64_t i, int64_t j) -> int64_t {
    for (int64_t e = 0; e < E; ++e)
      if (gr.src[e] == i && gr.dst[e] == j) return e;
    return -1;
  };
  Vec w = values(m, p + "w"), w0 = values(m, p + "w0"), tau = values(m, p + "tau"), tau0 = values(m, p + "tau0");
  Vec rho = kind == Kind::rnn ? values(m, p + "rho") : Vec();
  Vec s0 = values(m, p + (kind == Kind::glnn ? "V0" : "a0"));
  const int64_t O = static_cast<int64_t>(w0.size());
  std::vector<Vec> logits(xs.T, Vec(xs.B * O));
  if (pre) pre->assign(xs.T, Vec(xs.B * N));
  for (int64_t b = 0; b < xs.B; ++b) {
    Vec V(N), a(N);
    for (int64_t j = 0; j < N; ++j) {
      if (kind == Kind::glnn) V[j] = s0[j], a[j] = std::tanh(s0[j]);
      else a[j] = s0[j];
    }
    for (int64_t t = 0; t < xs.T; ++t) {
      const int x = sym(xs, t, b);
      Vec Vn(N);
      for (int64_t j = 0; j < N; ++j) {
        double s = kind == Kind::glnn ? V[j] : 0.0;
        s += kind == Kind::rnn ? rho[x * N + j] + tau0[j] : tau0[x * N + j];  // bias unit 0 (and rho)
        for (int64_t i = 0; i < N; ++i) {
          int64_t e = edge(i, j);
          if (e < 0) continue;
          s += (kind == Kind::rnn ? tau[e] : tau[x * E + e]) * a[i];
        }
        Vn[j] = s;
        if (pre) (*pre)[t][b * N + j] = s;
      }
      if (real(xs, t, b))
        for (int64_t j = 0; j < N; ++j) V[j] = Vn[j], a[j] = std::tanh(Vn[j]);
      for (int64_t y = 0; y < O; ++y) {
        double z = w0[y];
        for (int64_t i = 0; i < N; ++i) z += a[i] * w[i * O + y];
        logits[t][b * O + y] = z;
      }
    }
  }
  return logits;
}

void check_ollivier(const std::string& name, Kind kind) {
  for (const char* graph : {"out", "in", "full"}) {
    SCOPED_TRACE(graph);
    auto m = make_model(name, ollivier_cfg(graph), DType::f64, 4);
    Sequence xs = symbols(T, B, A, true);
    Unrolled r = unroll(*m, xs);
    std::vector<Vec> pre;
    expect_near(r.out.logits, ollivier_logits(*m, xs, kind, &pre), "logits");
    expect_near(r.out.preact, pre, "preact");
  }
}
TEST(MoreForward, Glnn) { check_ollivier("glnn", Kind::glnn); }
TEST(MoreForward, Gnn) { check_ollivier("gnn", Kind::gnn); }
TEST(MoreForward, OllivierRnn) { check_ollivier("ollivier_rnn", Kind::rnn); }

TEST(MoreForward, RandomGraphHasSelfLoopsAndDegree) {
  Rng rng(5);
  for (const char* mode : {"out", "in"}) {
    auto g = models::ollivier::random_graph(7, 3, mode, rng);
    EXPECT_EQ(g.edges(), 21);
    std::vector<int> deg(7, 0);
    for (int64_t e = 0; e < g.edges(); ++e) {
      deg[std::string(mode) == "out" ? g.src[e] : g.dst[e]]++;
      for (int64_t f = 0; f < e; ++f) EXPECT_FALSE(g.src[e] == g.src[f] && g.dst[e] == g.dst[f]) << "distinct edges";
    }
    for (int32_t i = 0; i < 7; ++i) {
      EXPECT_EQ(deg[i], 3) << mode << "-degree of unit " << i;
      EXPECT_GE(g.self_loop(i), 0);
    }
  }
  EXPECT_EQ(models::ollivier::random_graph(5, 3, "full", rng).edges(), 25);
  EXPECT_EQ(models::ollivier::random_graph(3, 9, "out", rng).edges(), 9) << "d >= N: the full graph";
}

// 003 §2: the GLNN start values V_j⁰ = atanh(2 beta_j), the digest's table.
TEST(MoreInit, GlnnStartValuesMatchTheDigestTable) {
  struct Row {
    int64_t j;
    double mu, beta, V0;
  };
  const Row table[] = {{1, 0.5, 0, 0},
                       {2, 1.0 / 3, -0.288675, -0.658479},
                       {3, 0.25, -0.353553, -0.881374},
                       {4, 0.2, -0.387298, -1.031719},
                       {8, 1.0 / 9, -0.440959, -1.384330},
                       {16, 1.0 / 17, -0.469668, -1.732379},
                       {64, 1.0 / 65, -0.492248, -2.425985}};
  for (const Row& r : table) {
    models::ollivier::GlnnUnitInit u = models::ollivier::glnn_unit_init(r.j);
    EXPECT_NEAR(u.mu, r.mu, 1e-12) << "j=" << r.j;
    EXPECT_NEAR(u.beta, r.beta, 5e-7) << "j=" << r.j;
    EXPECT_NEAR(u.V0, r.V0, 5e-7) << "j=" << r.j;
  }
  // And the model's V0 parameter carries them for units 1..64.
  auto m = make_model("glnn", {{"vocab", 4}, {"out", 4}, {"units", 64}, {"degree", 3}}, DType::f64, 9, 0);
  Vec V0 = values(*m, "glnn/V0");
  for (const Row& r : table) EXPECT_NEAR(V0[r.j - 1], r.V0, 5e-7) << "V0 of unit " << r.j;
}

TEST(MoreInit, GlnnRecipeFromDataStatistics) {
  // nu over the predicted symbols (targets weighted by chi), nu~ over all inputs.
  std::vector<int32_t> inputs = {0, 1, 1, 2, 1, 0, 1, 1}, targets = {1, 1, 2, 1, 0, 1, 1, 2};
  std::vector<double> chi = {1, 1, 1, 1, 0, 1, 1, 1};
  json stats = models::ollivier::statistics_options(targets, chi, inputs, 3, 3);
  Vec nu = stats["symbol_freq"].get<Vec>(), nu_all = stats["symbol_freq_all"].get<Vec>();
  EXPECT_NEAR(nu[0], 0.0, 1e-15);
  EXPECT_NEAR(nu[1], 5.0 / 7, 1e-15);
  EXPECT_NEAR(nu_all[1], 5.0 / 8, 1e-15);
  json cfg = {{"vocab", 3}, {"out", 3}, {"units", 6}, {"degree", 3}, {"freq_floor", 1e-8}};
  cfg.update(stats);
  auto m = make_model("glnn", cfg, DType::f64, 10, 0);
  const auto& gr = graph_of(*m);
  const int64_t N = 6, E = gr.edges();
  Vec w = values(*m, "glnn/w"), w0 = values(*m, "glnn/w0"), tau = values(*m, "glnn/tau"), tau0 = values(*m, "glnn/tau0");
  for (double x : w) EXPECT_EQ(x, 0.0) << "w_iy = 0 for i != 0";
  EXPECT_NEAR(w0[0], std::log(1e-8), 1e-9) << "nu_y = 0 falls back to the floor";
  EXPECT_NEAR(w0[1], std::log(5.0 / 7), 1e-12);
  EXPECT_NEAR(w0[2], std::log(2.0 / 7), 1e-12);
  for (int64_t y = 0; y < 3; ++y)
    for (int64_t e = 0; e < E; ++e) EXPECT_EQ(tau[y * E + e], gr.src[e] == gr.dst[e] ? -0.5 : 0.0);
  for (int64_t j = 0; j < N; ++j) {
    auto u = models::ollivier::glnn_unit_init(j + 1);
    double mean = 0;  // Σ_y nu~_y tau_0jy = beta_j: the perturbation has zero mean over the data
    for (int64_t y = 0; y < 3; ++y) {
      mean += nu_all[y] * tau0[y * N + j];
      EXPECT_LE(std::abs(tau0[y * N + j] - u.beta), u.mu / 4 + 1e-15) << "|eps u| <= mu/4";
    }
    EXPECT_NEAR(mean, u.beta, 1e-14);
  }
}

TEST(MoreInit, OllivierRnnRecipeAndGnnAnalogue) {
  json cfg = {{"vocab", 3}, {"out", 3}, {"units", 5}, {"degree", 2}, {"symbol_freq", {1, 2, 3}},
              {"symbol_freq_all", {3, 2, 1}}};
  auto rnn = make_model("ollivier_rnn", cfg, DType::f64, 12, 0);
  const auto& gr = graph_of(*rnn);
  Vec tau = values(*rnn, "ollivier_rnn/tau"), rho = values(*rnn, "ollivier_rnn/rho");
  for (int64_t e = 0; e < gr.edges(); ++e)
    EXPECT_EQ(tau[e], gr.src[e] == gr.dst[e] ? 1.0 - 1.0 / (gr.src[e] + 1) : 0.0) << "tau_ii = 1 - 1/i";
  for (double x : values(*rnn, "ollivier_rnn/tau0")) EXPECT_EQ(x, 0.0);
  EXPECT_NEAR(values(*rnn, "ollivier_rnn/w0")[2], std::log(0.5), 1e-12);
  for (int64_t j = 0; j < 5; ++j) {
    double mean = 0;
    for (int64_t y = 0; y < 3; ++y) mean += (3.0 - y) / 6 * rho[y * 5 + j];
    EXPECT_NEAR(mean, 0.0, 1e-15) << "rho is centred under nu~";
  }
  // With the same seed the GNN gets the same graph and draws: its initial model is the RNN's.
  auto gnn = make_model("gnn", cfg, DType::f64, 12, 0);
  Sequence xs = symbols(4, 2, 3, true);
  Unrolled a = unroll(*rnn, xs), b = unroll(*gnn, xs);
  std::vector<Vec> want;
  for (const Var& z : a.out.logits) want.push_back(z.value().to_vector());
  expect_near(b.out.logits, want, "gnn vs rnn at init");
}

// ---- all models: dense one-hot inputs equal symbol lookups; float32 runs ---------------------------

const std::vector<std::pair<std::string, json>>& tiny() {
  static const std::vector<std::pair<std::string, json>> t = {
      {"scrn", {{"vocab", A}, {"hidden", 3}, {"context", 2}, {"out", 3}}},
      {"scrn_learned", {{"vocab", A}, {"hidden", 3}, {"context", 2}, {"out", 3}}},
      {"esn", {{"vocab", A}, {"in", 0}, {"reservoir", 4}, {"out", 2}, {"degree", 2}}},
      {"irnn", {{"vocab", A}, {"hidden", 3}, {"out", 2}}},
      {"irnn_zero_bias", {{"vocab", A}, {"hidden", 3}, {"out", 2}}},
      {"glnn", ollivier_cfg("out")},
      {"gnn", ollivier_cfg("in")},
      {"ollivier_rnn", ollivier_cfg("full")},
      {"gated_feedback", {{"vocab", A}, {"out", 2}, {"cell", "lstm"}, {"layers", {3, 2}}}},
      {"stacked", {{"vocab", A}, {"out", 2}, {"cell", "gru"}, {"layers", {3, 2}}}},
      {"bidirectional", {{"vocab", A}, {"out", 2}, {"cell", "scrn"}, {"layers", {3}}, {"context", 2}}},
  };
  return t;
}

TEST(MoreForward, DenseOneHotInputsEqualSymbols) {
  for (const auto& [name, cfg] : tiny()) {
    SCOPED_TRACE(name);
    auto m = make_model(name, cfg, DType::f64, 21);
    json dense = cfg;
    dense["vocab"] = 0;
    dense["in"] = A;
    auto md = make_model(name, dense, DType::f64, 21);
    md->params().set_values(m->params().values());
    Sequence xs = symbols(T, B, A, true);
    Unrolled a = unroll(*m, xs), b = unroll(*md, one_hot(xs, A));
    std::vector<Vec> want;
    for (const Var& z : a.out.logits) want.push_back(z.value().to_vector());
    expect_near(b.out.logits, want, "dense vs symbols");
  }
}

TEST(MoreForward, Float32AndRegistryEntries) {
  for (const auto& [name, cfg] : tiny()) {
    SCOPED_TRACE(name);
    const models::ModelInfo& info = models::find(name);
    EXPECT_FALSE(info.description.empty());
    EXPECT_FALSE(info.seed.empty());
    auto m32 = make_model(name, cfg, DType::f32, 22);
    auto m64 = make_model(name, cfg, DType::f64, 22);
    Sequence xs = symbols(T, B, A, false);
    Unrolled a = unroll(*m32, xs), b = unroll(*m64, xs);
    for (int64_t t = 0; t < T; ++t) {
      EXPECT_EQ(a.out.logits[t].dtype(), DType::f32);
      Vec x = a.out.logits[t].value().to_vector(), y = b.out.logits[t].value().to_vector();
      for (size_t k = 0; k < x.size(); ++k) EXPECT_NEAR(x[k], y[k], 1e-5);
    }
    // Zero initial state option.
    json z = cfg;
    z["learned_h0"] = false;
    auto mz = make_model(name, z, DType::f64, 22);
    for (const auto& e : mz->params().layout()->entries)
      for (const char* state : {"/h0", "/s0", "/V0", "/a0"})
        EXPECT_FALSE(e.name.ends_with(state)) << e.name << " should not exist with init_state = zero";
  }
}

}  // namespace
}  // namespace tg
