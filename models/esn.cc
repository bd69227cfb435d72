// Echo state network with leaky-integrator units (Jaeger; Sutskever 000 §1.3, eq 2.45; Galvan 002 §2.7):
//   u_t = x_t W_in + h_{t-1} W + b,   h_t = alpha h_{t-1} + (1 - alpha) tanh(u_t),   z_t = h_t W_out + b_out
// W_in, W and b are a fixed random reservoir: graph constants (g.input), never parameters, so only the
// readout (W_out, b_out, and h0 when learned_h0) is trained. W is sparse (`degree` N(0,1)
// incoming weights per unit) rescaled to the spectral radius `spectral_radius` (slightly below 1 by
// default: the echo state property); W_in is dense U[-input_scale, input_scale]; b is
// U[-bias_scale, bias_scale] (0 by default).
// Leak convention: both seeds write alpha on the OLD state (alpha = 0: a plain tanh reservoir; alpha
// near 1: slow units). Galvan's prose ("a small alpha makes the reservoir react slowly") contradicts his
// own formula; we follow the formula, as Sutskever does.
#include <fmt/format.h>

#include "core/error.h"
#include "core/memory_budget.h"
#include "models/cell_model.h"
#include "models/init.h"
#include "models/more_models.h"
#include "models/cell.h"
#include "models/init.h"
#include "models/output_layer.h"

namespace tg::models {

namespace {
const char* kName = "esn";

nlohmann::json esn_defaults() {
  return {{"vocab", 0},          {"in", 1},           {"reservoir", 100},     {"out", 1},
          {"output", "linear"},  {"alpha", 0.5},      {"spectral_radius", 0.95}, {"degree", 10},
          {"input_scale", 1.0},  {"bias_scale", 0.0}, {"readout_scale", 0.01}, {"learned_h0", false}};
}

class Esn final : public Model {
 public:
  Esn(const nlohmann::json& cfg, DType dt, Rng& rng) : Model(dt), kind_(kName) {
    OptionReader o(fmt::format("model '{}'", kind_), cfg);
    io_ = read_io_sizes(o);
    in_ = io_.input_size();
    H_ = o.size("reservoir");
    out_kind_ = read_output_kind(o, "output");
    res_.alpha = o.number("alpha");
    if (!(res_.alpha >= 0 && res_.alpha < 1)) o.fail("option 'alpha' must lie in [0, 1)");
    const double rho = o.number("spectral_radius"), is = o.number("input_scale"), bs = o.number("bias_scale");
    if (!(rho > 0)) o.fail("option 'spectral_radius' must be positive");
    // the reservoir is not a parameter (ParamSet::add checks those): its [H, H] matrix is checked here
    int64_t reservoir_values = 0;
    if (__builtin_mul_overflow(H_, H_, &reservoir_values)) reservoir_values = -1;
    if (const std::string need = memory_shortfall(reservoir_values, DType::f64); !need.empty())
      o.fail(fmt::format("option 'reservoir' ({}) makes a [{},{}] reservoir of {}; use a smaller reservoir", H_, H_, H_, need));
    res_.W_in = Tensor::empty({in_, H_}, DType::f64);
    init::uniform(-is, is)(res_.W_in, rng);
    res_.W = Tensor::empty({H_, H_}, DType::f64);
    init::with_spectral_radius(init::sparse(o.size("degree"), 1.0), rho)(res_.W, rng);
    res_.b = Tensor::empty({H_}, DType::f64);
    init::uniform(-bs, bs)(res_.b, rng);
    W_out_ = params_.add("esn/W_out", {H_, io_.out}, init::normal(o.number("readout_scale")), &rng);
    b_out_ = params_.add("esn/b_out", {io_.out}, init::zeros());
    if (o.flag("learned_h0")) h0_ = params_.add("esn/h0", {H_}, init::zeros());
  }
  const std::string& kind() const override { return kind_; }
  OutputKind output_kind() const override { return out_kind_; }
  const EsnReservoir& reservoir() const { return res_; }

  Outputs unroll(Graph& g, const Sequence& xs) const override {
    check_sequence(xs, io_, kind_);
    g.bind(params_);
    const DType dt = params_.dtype();
    Var W_in = g.input(res_.W_in.astype(dt)), W = g.input(res_.W.astype(dt)), b = g.input(res_.b.astype(dt));
    Var W_out = g[W_out_], b_out = g[b_out_];
    Var h = initial_part(g, h0_.index >= 0 ? g[h0_] : Var(), xs.B, H_, dt);
    const double a = res_.alpha;
    Outputs out;
    for (int64_t t = 0; t < xs.T; ++t) {
      ScopeGuard scope(g, "esn/t", t);
      Var u = project(step_input(g, xs, t, dt), W_in) + ops::matmul(h, W) + b;
      Var fresh = a == 0 ? ops::tanh(u) : a * h + (1 - a) * ops::tanh(u);
      h = carry_over(g, fresh, h, xs, t);
      Var z = ops::matmul(h, W_out) + b_out;
      out.record(g, u, h, z);
    }
    return out;
  }

 private:
  std::string kind_;
  int64_t in_ = 0, H_ = 0;
  OutputKind out_kind_ = OutputKind::linear;
  EsnReservoir res_;
  ParamId W_out_, b_out_, h0_;
};
}  // namespace

const EsnReservoir& esn_reservoir(const Model& m) {
  const auto* e = dynamic_cast<const Esn*>(&m);
  if (!e) throw Error(fmt::format("esn_reservoir: model '{}' is not an echo state network", m.kind()));
  return e->reservoir();
}

void register_esn(std::vector<ModelInfo>& r) {
  r.push_back({kName, "echo state network: fixed sparse leaky-integrator tanh reservoir, trained linear readout",
               "000, 002", esn_defaults(), [](const nlohmann::json& cfg, DType dt, Rng& rng) -> std::unique_ptr<Model> {
                 return std::make_unique<Esn>(merge_options(fmt::format("model \'{}\'", kName), esn_defaults(), cfg), dt, rng);
               }});
}

}  // namespace tg::models
