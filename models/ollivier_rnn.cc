// Ollivier's classical RNN (seed 003, Sect. 1.2.1), the baseline of the GLNN paper:
//   V_j^{t+1} = rho_{j x_t} + Σ_i tau_ij a_i^t   (8),   a_j^{t+1} = tanh(V_j^{t+1})   (9)
// over the graph's edges plus the bias unit 0 (tau_0j, redundant with rho but kept: footnote 3);
// softmax readout (6). rho is an input weight per unit and symbol (a column lookup); dense inputs use
// x_t rho. Time convention as in models/glnn.cc.
//
// Initialisation (69): w_0y = log nu_y; tau_ii = 1 - 1/i (paper unit i, so tau_11 = 0);
// rho_jy = (1/2)(u_jy - Σ_y' nu~_y' u_jy'), u ~ U[0,1]; every other weight 0. The initial activities
// a⁰ are not specified: we start them at 0 (learned when init_state = "learned").
#include "models/cell_model.h"
#include "models/cell.h"
#include "models/init.h"
#include "models/ollivier.h"

namespace tg::models::ollivier {

namespace {
const char* kName = "ollivier_rnn";

class OllivierRnn final : public GraphModel {
 public:
  OllivierRnn(const nlohmann::json& cfg, DType dt, Rng& rng) : GraphModel(kName, dt) {
    c_ = detail::read_common(kName, cfg, /*gated=*/false, graph_, rng);
    io_ = c_.io;
    const int64_t N = c_.units, E = graph_.edges(), A = c_.in, O = c_.out;
    std::vector<double> w(N * O, 0.0), w0(O), rho(A * N), tau(E, 0.0), tau0(N, 0.0), a0(N, 0.0);
    if (c_.init == "ollivier") {
      w0 = detail::log_frequencies(c_);
      rho = detail::centred_uniform(c_, std::vector<double>(N, 0.5), rng);
      for (int64_t i = 0; i < N; ++i) tau[graph_.self_loop(static_cast<int32_t>(i))] = 1.0 - 1.0 / static_cast<double>(i + 1);
    } else {
      w = init::normal_values(N * O, c_.init_scale, rng);
      w0 = init::normal_values(O, c_.init_scale, rng);
      rho = init::normal_values(A * N, c_.init_scale, rng);
      tau = init::normal_values(E, c_.init_scale, rng);
      tau0 = init::normal_values(N, c_.init_scale, rng);
      a0 = init::normal_values(N, c_.init_scale, rng);
    }
    w_ = params_.add("ollivier_rnn/w", Tensor::from({N, O}, w, dt));
    w0_ = params_.add("ollivier_rnn/w0", Tensor::from({O}, w0, dt));
    rho_ = params_.add("ollivier_rnn/rho", Tensor::from({A, N}, rho, dt));
    tau_ = params_.add("ollivier_rnn/tau", Tensor::from({E}, tau, dt));
    tau0_ = params_.add("ollivier_rnn/tau0", Tensor::from({N}, tau0, dt));
    if (c_.learned_state) a0_ = params_.add("ollivier_rnn/a0", Tensor::from({N}, a0, dt));
  }

  Outputs unroll(Graph& g, const Sequence& xs) const override {
    check_sequence(xs, io_, kind_);
    g.bind(params_);
    const DType dt = params_.dtype();
    Var w = g[w_], w0 = g[w0_], rho = g[rho_], tau = g[tau_], tau0 = g[tau0_];
    Var a = initial_part(g, c_.learned_state ? g[a0_] : Var(), xs.B, c_.units, dt);
    g.tag(a, "start_state");  // per-sequence start state: its adjoint is each line's B^0 (riemannian/lines)
    Outputs out;
    for (int64_t t = 0; t < xs.T; ++t) {
      ScopeGuard scope(g, "ollivier_rnn/t", t);
      Var V = project(step_input(g, xs, t, dt), rho) + edge_matvec(a, tau, graph_) + tau0;
      a = carry_over(g, ops::tanh(V), a, xs, t);
      Var z = ops::matmul(a, w) + w0;
      out.record(g, V, a, z);
    }
    return out;
  }

 private:
  detail::Common c_;
  ParamId w_, w0_, rho_, tau_, tau0_, a0_;
};
}  // namespace

void register_ollivier_rnn(std::vector<ModelInfo>& r) {
  r.push_back({kName, "Ollivier's classical RNN: a_j = tanh(rho[j,x_t] + Σ tau_ij a_i) on a random graph with a bias unit",
               "003", common_defaults(), [](const nlohmann::json& cfg, DType dt, Rng& rng) -> std::unique_ptr<Model> {
                 return std::make_unique<OllivierRnn>(merge_options(fmt::format("model \'{}\'", kName), common_defaults(), cfg), dt, rng);
               }});
}

}  // namespace tg::models::ollivier
