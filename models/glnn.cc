// Gated leaky neural network, GLNN (Ollivier 2015, seed 003, Definition 5):
//   V_j^{t+1} = V_j^t + Σ_i tau_{i j x_t} a_i^t,   a_j^t = tanh(V_j^t)                        (13)
//   pi_t(y)  = softmax_y( Σ_i a_i^t w_iy )                                                      (14)
// The sum runs over the graph's edges i -> j (self-loops included) plus the bias unit 0 (a_0 = 1).
// Every edge carries one weight per input symbol: the step gathers the row tau[x_t] (a symbol-gated
// transition). Dense inputs use Σ_k x_t^k tau_{ijk} (Remark 2).
//
// Time convention (shared with every model here): step t reads x_t, moves V^t to V^{t+1} and emits the
// logits E^{t+1} = a^{t+1} w + w0, which predict the next symbol. The paper's pi_0 (from V^0, predicting
// x_0 before any input) is not emitted; feed a start symbol to get it.
//
// Initialisation, §2 (eqs 30-33): w_0y = log nu_y, w_iy = 0; tau_iiy = -alpha; tau_ijy = 0 (i != j);
// tau_0jy = beta_j + (mu_j/4)(u_jy - Σ_y' nu~_y' u_jy'); mu_j = 1/(j+1), alpha = 1/2,
// beta_j = -sqrt(alpha(alpha - mu_j)); V_j⁰ = atanh(beta_j/alpha). nu and nu~ come from the options
// symbol_freq / symbol_freq_all (see ollivier::statistics_options); uniform when not given.
#include "models/cell_model.h"
#include "models/cell.h"
#include "models/init.h"
#include "models/ollivier.h"

namespace tg::models::ollivier {

namespace {
const char* kName = "glnn";

class Glnn final : public GraphModel {
 public:
  Glnn(const nlohmann::json& cfg, DType dt, Rng& rng) : GraphModel(kName, dt) {
    c_ = detail::read_common(kName, cfg, /*gated=*/true, graph_, rng);
    io_ = c_.io;
    const int64_t N = c_.units, E = graph_.edges(), A = c_.in, O = c_.out;
    std::vector<double> w(N * O, 0.0), w0(O), tau(A * E, 0.0), tau0(A * N), V0(N);
    if (c_.init == "ollivier") {
      const double alpha = 0.5;
      w0 = detail::log_frequencies(c_);
      std::vector<double> eps(N), beta(N);
      for (int64_t j = 0; j < N; ++j) {
        GlnnUnitInit u = glnn_unit_init(j + 1, alpha);
        eps[j] = u.mu / 4;  // (79)
        beta[j] = u.beta;
        V0[j] = u.V0;
      }
      tau0 = detail::centred_uniform(c_, eps, rng);
      for (int64_t y = 0; y < A; ++y)
        for (int64_t j = 0; j < N; ++j) tau0[y * N + j] += beta[j];
      for (int64_t i = 0; i < N; ++i) {
        const int64_t e = graph_.self_loop(static_cast<int32_t>(i));
        for (int64_t y = 0; y < A; ++y) tau[y * E + e] = -alpha;
      }
    } else {
      w = init::normal_values(N * O, c_.init_scale, rng);
      w0 = init::normal_values(O, c_.init_scale, rng);
      tau = init::normal_values(A * E, c_.init_scale, rng);
      tau0 = init::normal_values(A * N, c_.init_scale, rng);
      V0 = init::normal_values(N, c_.init_scale, rng);
    }
    w_ = params_.add("glnn/w", Tensor::from({N, O}, w, dt));
    w0_ = params_.add("glnn/w0", Tensor::from({O}, w0, dt));
    tau_ = params_.add("glnn/tau", Tensor::from({A, E}, tau, dt));
    tau0_ = params_.add("glnn/tau0", Tensor::from({A, N}, tau0, dt));
    if (c_.learned_state) V0_ = params_.add("glnn/V0", Tensor::from({N}, V0, dt));
  }

  Outputs unroll(Graph& g, const Sequence& xs) const override {
    check_sequence(xs, io_, kind_);
    g.bind(params_);
    const DType dt = params_.dtype();
    Var w = g[w_], w0 = g[w0_], tau = g[tau_], tau0 = g[tau0_];
    Var V = initial_part(g, c_.learned_state ? g[V0_] : Var(), xs.B, c_.units, dt);
    g.tag(V, "start_state");  // per-sequence start state: its adjoint is each line's B^0 (riemannian/lines)
    Var a = ops::tanh(V);
    Outputs out;
    for (int64_t t = 0; t < xs.T; ++t) {
      ScopeGuard scope(g, "glnn/t", t);
      const StepInput x = step_input(g, xs, t, dt);
      Var gate = project(x, tau);  // [B, E]: tau_{i j x_t}
      Var bias = project(x, tau0);  // [B, N]: tau_{0 j x_t}
      Var Vn = V + edge_matvec(a, gate, graph_) + bias;
      V = carry_over(g, Vn, V, xs, t);
      a = ops::tanh(V);
      Var z = ops::matmul(a, w) + w0;
      out.record(g, Vn, a, z);
    }
    return out;
  }

 private:
  detail::Common c_;
  ParamId w_, w0_, tau_, tau0_, V0_;
};
}  // namespace

void register_glnn(std::vector<ModelInfo>& r) {
  r.push_back({kName,
               "gated leaky NN: V += Σ tau[i,j,x_t] tanh(V_i) on a random graph with self-loops and a bias unit",
               "003", common_defaults(), [](const nlohmann::json& cfg, DType dt, Rng& rng) -> std::unique_ptr<Model> {
                 return std::make_unique<Glnn>(merge_options(fmt::format("model \'{}\'", kName), common_defaults(), cfg), dt, rng);
               }});
}

}  // namespace tg::models::ollivier
