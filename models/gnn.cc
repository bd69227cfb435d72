// Gated neural network, GNN (Ollivier 2015, seed 003, Sect. 1.2.2):
//   V_j^{t+1} = Σ_i a_i^t tau_{i j x_t}   (10),   a_j^{t+1} = tanh(V_j^{t+1})   (11)
// over the graph's edges plus the bias unit 0; softmax readout (6). No leak: the state is a.
// Time convention and dense inputs as in models/glnn.cc.
//
// Initialisation: the paper gives none. We map the classical-RNN recipe (69) through the identity
// tau_{0jy} = rho_{jy} + tau_{0j} (exactly one symbol is active): tau_iiy = 1 - 1/i (paper unit i),
// tau_0jy = (1/2)(u_jy - Σ_y' nu~_y' u_jy'), other tau 0, w_0y = log nu_y, w_iy = 0, a⁰ = 0. The
// initial GNN then computes exactly what the initial classical RNN computes (tested).
#include "models/cell_model.h"
#include "models/cell.h"
#include "models/init.h"
#include "models/ollivier.h"

namespace tg::models::ollivier {

namespace {
const char* kName = "gnn";

class Gnn final : public GraphModel {
 public:
  Gnn(const nlohmann::json& cfg, DType dt, Rng& rng) : GraphModel(kName, dt) {
    c_ = detail::read_common(kName, cfg, /*gated=*/true, graph_, rng);
    io_ = c_.io;
    const int64_t N = c_.units, E = graph_.edges(), A = c_.in, O = c_.out;
    std::vector<double> w(N * O, 0.0), w0(O), tau(A * E, 0.0), tau0(A * N), a0(N, 0.0);
    if (c_.init == "ollivier") {
      w0 = detail::log_frequencies(c_);
      tau0 = detail::centred_uniform(c_, std::vector<double>(N, 0.5), rng);
      for (int64_t i = 0; i < N; ++i) {
        const int64_t e = graph_.self_loop(static_cast<int32_t>(i));
        for (int64_t y = 0; y < A; ++y) tau[y * E + e] = 1.0 - 1.0 / static_cast<double>(i + 1);
      }
    } else {
      w = init::normal_values(N * O, c_.init_scale, rng);
      w0 = init::normal_values(O, c_.init_scale, rng);
      tau = init::normal_values(A * E, c_.init_scale, rng);
      tau0 = init::normal_values(A * N, c_.init_scale, rng);
      a0 = init::normal_values(N, c_.init_scale, rng);
    }
    w_ = params_.add("gnn/w", Tensor::from({N, O}, w, dt));
    w0_ = params_.add("gnn/w0", Tensor::from({O}, w0, dt));
    tau_ = params_.add("gnn/tau", Tensor::from({A, E}, tau, dt));
    tau0_ = params_.add("gnn/tau0", Tensor::from({A, N}, tau0, dt));
    if (c_.learned_state) a0_ = params_.add("gnn/a0", Tensor::from({N}, a0, dt));
  }

  Outputs unroll(Graph& g, const Sequence& xs) const override {
    check_sequence(xs, io_, kind_);
    g.bind(params_);
    const DType dt = params_.dtype();
    Var w = g[w_], w0 = g[w0_], tau = g[tau_], tau0 = g[tau0_];
    Var a = initial_part(g, c_.learned_state ? g[a0_] : Var(), xs.B, c_.units, dt);
    g.tag(a, "start_state");  // per-sequence start state: its adjoint is each line's B^0 (riemannian/lines)
    Outputs out;
    for (int64_t t = 0; t < xs.T; ++t) {
      ScopeGuard scope(g, "gnn/t", t);
      const StepInput x = step_input(g, xs, t, dt);
      Var gate = project(x, tau);   // [B, E]
      Var bias = project(x, tau0);  // [B, N]
      Var V = edge_matvec(a, gate, graph_) + bias;
      a = carry_over(g, ops::tanh(V), a, xs, t);
      Var z = ops::matmul(a, w) + w0;
      out.record(g, V, a, z);
    }
    return out;
  }

 private:
  detail::Common c_;
  ParamId w_, w0_, tau_, tau0_, a0_;
};
}  // namespace

void register_gnn(std::vector<ModelInfo>& r) {
  r.push_back({kName, "gated NN: a_j = tanh(Σ tau[i,j,x_t] a_i), symbol-gated edges of a random graph plus a bias unit",
               "003", common_defaults(), [](const nlohmann::json& cfg, DType dt, Rng& rng) -> std::unique_ptr<Model> {
                 return std::make_unique<Gnn>(merge_options(fmt::format("model \'{}\'", kName), common_defaults(), cfg), dt, rng);
               }});
}

}  // namespace tg::models::ollivier
