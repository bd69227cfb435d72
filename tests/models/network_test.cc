// Feedforward networks (models/network.h): every registered network has gradient-check rows that pass
// at order 2 and whose Gauss-Newton product equals Jᵀ H J assembled independently; the autoencoder
// builder mirrors its encoder with a linear code layer; sparse initialisation gives each unit 15
// incoming weights (tanh: scaled by 0.25, biases -0.5, as the thesis says); bad specs are one-line
// errors; dropout masks are drawn only when asked and scale the kept units; the two loss means agree.
#include <gtest/gtest.h>

#include <cmath>

#include "core/ad.h"
#include "core/error.h"
#include "ops/ops.h"
#include "gradcheck/network_specs.h"
#include "models/network_objective.h"

namespace tg::models {
namespace {

std::unique_ptr<Network> make(const std::string& name, const nlohmann::json& options, uint64_t seed = 1) {
  const NetworkInfo* info = find_network(name);
  Rng rng(seed);
  return info->make(resolve(*info, options), DType::f64, rng);
}

std::string error_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const Error& e) {
    return e.what();
  }
  return "";
}

class NetworkRows : public ::testing::TestWithParam<check::NetworkSpec> {};

TEST_P(NetworkRows, PassesTheGradientCheckAtOrderTwo) {
  const check::Report r = check::check_network(GetParam());
  EXPECT_TRUE(r.ok) << r.failure;
}

TEST_P(NetworkRows, GaussNewtonIsJtHJ) {
  const check::Report r = check::check_network_gauss_newton(GetParam());
  EXPECT_TRUE(r.ok) << r.failure;
  EXPECT_LT(r.worst, 1e-6);
}

std::string row_name(const ::testing::TestParamInfo<check::NetworkSpec>& info) {
  std::string s = info.param.name;
  for (char& c : s)
    if (!isalnum(static_cast<unsigned char>(c))) c = '_';
  return s;
}
INSTANTIATE_TEST_SUITE_P(Zoo, NetworkRows, ::testing::ValuesIn(check::network_specs()), row_name);

TEST(Network, EveryRegisteredNetworkHasARow) {
  for (const NetworkInfo& n : networks()) {
    bool found = false;
    for (const check::NetworkSpec& s : check::network_specs()) found = found || s.network == n.name;
    EXPECT_TRUE(found) << n.name << " has no gradient-check row in gradcheck/network_specs.cc";
  }
}

TEST(Network, AutoencoderMirrorsItsEncoderWithALinearCode) {
  auto net = make("autoencoder", {{"in", 784}, {"out", 784}});  // the thesis's CURVES net
  const std::vector<int64_t> want = {784, 400, 200, 100, 50, 25, 6, 25, 50, 100, 200, 400, 784};
  ASSERT_EQ(net->layers().size(), want.size() - 1);
  int64_t params = 0;
  for (size_t l = 0; l < net->layers().size(); ++l) {
    const Network::Layer& layer = net->layers()[l];
    EXPECT_EQ(layer.in, want[l]);
    EXPECT_EQ(layer.out, want[l + 1]);
    params += (layer.in + 1) * layer.out;
    if (l == 5) EXPECT_EQ(layer.activation, Activation::linear) << "the code layer";
    else if (l + 1 < net->layers().size()) EXPECT_EQ(layer.activation, Activation::logistic) << "layer " << l;
  }
  EXPECT_EQ(net->params().numel(), params);
  EXPECT_EQ(net->output_kind(), tasks::OutputKind::logistic);
  auto listed = make("autoencoder", {{"in", 6}, {"out", 6}, {"encoder", {6, 3}}, {"code", "logistic"}});
  EXPECT_EQ(listed->layers().front().activation, Activation::logistic);
}

TEST(Network, SparseInitGivesEachUnitFifteenIncomingWeights) {
  for (const char* activation : {"logistic", "tanh"}) {
    auto net = make("autoencoder", {{"in", 40}, {"out", 40}, {"encoder", "40-30-10"}, {"activation", activation}});
    const bool tanh = std::string(activation) == "tanh";
    for (size_t l = 0; l < net->layers().size(); ++l) {
      const Network::Layer& layer = net->layers()[l];
      const Tensor& w = net->params().value(layer.W);
      double sum_sq = 0;
      int64_t nonzero_total = 0;
      for (int64_t j = 0; j < layer.out; ++j) {
        int64_t nonzero = 0;
        for (int64_t i = 0; i < layer.in; ++i) {
          const double v = w.at(i * layer.out + j);
          nonzero += v != 0;
          sum_sq += v * v;
        }
        EXPECT_EQ(nonzero, std::min<int64_t>(15, layer.in)) << activation << " layer " << l << " unit " << j;
        nonzero_total += nonzero;
      }
      // N(0, 1) draws, times 0.25 for tanh hidden layers
      const bool scaled = tanh && layer.activation == Activation::tanh;
      EXPECT_NEAR(std::sqrt(sum_sq / static_cast<double>(nonzero_total)), scaled ? 0.25 : 1.0, scaled ? 0.06 : 0.25)
          << activation << " layer " << l;
      const Tensor& b = net->params().value(layer.b);
      for (int64_t j = 0; j < layer.out; ++j) EXPECT_EQ(b.at(j), scaled ? -0.5 : 0.0) << activation << " layer " << l;
    }
  }
}

TEST(Network, BadSpecsAreOneLineErrors) {
  EXPECT_NE(error_of([] { make("autoencoder", {{"in", 625}, {"out", 625}}); }).find("starts at 784 units, but the data has 625"),
            std::string::npos);
  EXPECT_NE(error_of([] { make("autoencoder", {{"in", 784}, {"out", 784}, {"encoder", "784-x-30"}}); }).find("'x' is not a size"),
            std::string::npos);
  EXPECT_NE(error_of([] { make("autoencoder", {{"in", 784}, {"out", 784}, {"encoder", "784"}}); }).find("at least two"),
            std::string::npos);
  EXPECT_NE(error_of([] { make("mlp", {{"in", 4}, {"out", 2}, {"dropout", 1.0}}); }).find("dropout"), std::string::npos);
  EXPECT_NE(error_of([] { make("mlp", {{"in", 4}, {"out", 2}, {"activation", "swish"}}); }).find("swish"), std::string::npos);
  EXPECT_EQ(find_network("lstm"), nullptr);
}

TEST(Network, DropoutMasksAreDrawnOnlyWhenAskedAndScaleTheKeptUnits) {
  NetworkObjective plain(make("mlp", {{"in", 50}, {"out", 3}, {"hidden", {40}}}));
  tasks::Images b;
  b.inputs = Tensor::zeros({200, 50}, DType::f32);
  Rng rng(9), untouched(9);
  plain.draw_noise(b, rng);
  EXPECT_TRUE(b.keep.empty());
  EXPECT_EQ(rng(), untouched()) << "no dropout: no random numbers drawn";
  NetworkObjective dropped(make("mlp", {{"in", 50}, {"out", 3}, {"hidden", {40}}, {"dropout", 0.5}}));
  dropped.draw_noise(b, rng);
  ASSERT_EQ(b.keep.size(), 2u);
  EXPECT_EQ(b.keep[0].raw(), nullptr) << "input_dropout is 0";
  ASSERT_EQ(b.keep[1].shape(), (Shape{200, 40}));
  int64_t zeros = 0;
  for (int64_t i = 0; i < b.keep[1].size(); ++i) {
    const double k = b.keep[1].at(i);
    EXPECT_TRUE(k == 0 || k == 2) << k;
    zeros += k == 0;
  }
  EXPECT_NEAR(static_cast<double>(zeros) / 8000.0, 0.5, 0.03);
}

TEST(Network, ForwardAppliesTheDropoutMasks) {
  auto net = make("mlp", {{"in", 4}, {"out", 3}, {"hidden", {5}}, {"activation", "tanh"}, {"dropout", 0.5}});
  Tensor x = Tensor::full({2, 4}, 0.7, DType::f64), zeros = Tensor::zeros({2, 4}, DType::f64);
  auto logits = [&](const Tensor& in, const std::vector<Tensor>& keep) {
    Graph g;
    return net->forward(g, g.input(in), keep).logits.value().to_vector();
  };
  // a mask of zeros on the input equals a zero input; a mask of 2s on the hidden units doubles what the
  // last layer reads from them
  EXPECT_EQ(logits(x, {zeros, Tensor{}}), logits(zeros, {}));
  const std::vector<double> plain = logits(x, {}), doubled = logits(x, {Tensor{}, Tensor::full({2, 5}, 2.0, DType::f64)});
  EXPECT_NE(plain, doubled);
  Graph g;
  Network::Forward f = net->forward(g, g.input(x));
  const Tensor h = ops::tanh(f.preact[0]).value(), w = net->params().value(net->layers()[1].W),
               b = net->params().value(net->layers()[1].b);
  for (int64_t j = 0; j < 3; ++j) {
    double z = b.at(j);
    for (int64_t k = 0; k < 5; ++k) z += 2 * h.at(k) * w.at(k * 3 + j);
    EXPECT_NEAR(doubled[static_cast<size_t>(j)], z, 1e-12);
  }
}

TEST(Network, FisherProductIsTheOuterProductOfPerImageGradients) {
  for (const check::NetworkSpec& spec : check::network_specs()) {
    SCOPED_TRACE(spec.name);
    NetworkObjective obj(check::make_network(spec), {.fisher = true});
    const tasks::Images b = check::tiny_images(obj.network());
    const ParamVec theta = obj.params().values().clone();
    Rng rng(5);
    const ParamVec v = ParamVec::random_normal(obj.params().layout(), DType::f64, rng);
    const ParamVec engine = obj.evaluate(theta, b)->fisher_vp(v);
    // (N / W²) Σ_n ∇ℓ_n ∇ℓ_nᵀ v, with ℓ_n = weight(image n) × the loss of image n alone
    const double n = static_cast<double>(b.size()), w = obj.weight(b);
    ParamVec want(obj.params().layout(), DType::f64);
    for (int64_t i = 0; i < b.size(); ++i) {
      auto one = b.slice(i, 1);
      ParamVec g = obj.evaluate(theta, *one)->grad();
      g.scale(obj.weight(*one));
      want.axpy(n / (w * w) * g.dot(v), g);
    }
    EXPECT_LE(engine.clone().axpy(-1, want).norm(), 1e-10 * want.norm());
  }
}

TEST(Network, TheLossMeanOverCasesIsTheMeanOverOutputsTimesTheirNumber) {
  const check::NetworkSpec spec = check::network_specs()[3];  // autoencoder, logistic outputs
  NetworkObjective cases(check::make_network(spec)), outputs(check::make_network(spec), {.mean_over = "outputs"});
  const tasks::Images b = check::tiny_images(cases.network());
  const ParamVec theta = cases.params().values().clone();
  const double out = static_cast<double>(cases.network().output_size());
  EXPECT_NEAR(cases.evaluate(theta, b)->value(), out * outputs.evaluate(theta, b)->value(), 1e-12);
  EXPECT_DOUBLE_EQ(cases.weight(b), 3.0);
  EXPECT_DOUBLE_EQ(outputs.weight(b), 3.0 * out);
  EXPECT_NE(error_of([] { network_objective_options_from_json({{"mean_over", "pixels"}}); }).find("pixels"), std::string::npos);
}

TEST(Network, EvaluatesAtThetaAndKeepsTheInitialValues) {
  const check::NetworkSpec spec = check::network_specs()[3];  // autoencoder, logistic outputs
  NetworkObjective obj(check::make_network(spec));
  const tasks::Images b = check::tiny_images(obj.network());
  const ParamVec initial = obj.params().values().clone();
  ParamVec theta = initial.clone().scale(0.5);
  auto at_theta = obj.evaluate(theta, b);
  const double value = at_theta->value();
  const ParamVec grad = at_theta->grad();
  EXPECT_EQ(obj.params().values().flat().to_vector(), initial.flat().to_vector());
  // the same loss and gradient from a graph over a network whose set holds θ
  std::unique_ptr<Network> copy = check::make_network(spec);
  copy->params().set_values(theta);
  Graph g;
  Network::Forward f = copy->forward(g, g.input(b.inputs));
  auto [reference, reference_grad] = ad::value_and_grad(network_loss(g, copy->output_kind(), f.logits, b, 3.0));
  EXPECT_DOUBLE_EQ(value, reference);
  EXPECT_EQ(grad.flat().to_vector(), reference_grad.flat().to_vector());
  const ParamVec v = initial.clone().fill(1.0);
  const std::vector<double> gv = at_theta->gnvp(v).flat().to_vector();
  // the evaluation reads θ's buffer (Objective::evaluate's contract): an optimizer replaces θ by a new
  // vector, which leaves the evaluation as it was; writing θ in place is what the contract forbids
  theta = theta.clone().fill(0);
  EXPECT_EQ(at_theta->gnvp(v).flat().to_vector(), gv);
}

}  // namespace
}  // namespace tg::models
