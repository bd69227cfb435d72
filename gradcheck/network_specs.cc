#include "gradcheck/network_specs.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <random>

#include "core/ad.h"
#include "core/error.h"
#include "core/linearize.h"
#include "models/network_objective.h"

namespace tg::check {

const std::vector<NetworkSpec>& network_specs() {
  // Tiny sizes; every activation, output kind and dropout appears in some row.
  static const std::vector<NetworkSpec> specs = {
      {"mlp", "mlp", {{"in", 4}, {"out", 3}, {"hidden", {3, 2}}, {"activation", "tanh"}, {"output", "softmax"}}},
      {"mlp/logistic-dropout", "mlp",
       {{"in", 4}, {"out", 3}, {"hidden", {3}}, {"activation", "logistic"}, {"output", "logistic"}, {"dropout", 0.5},
        {"input_dropout", 0.2}}},
      {"mlp/relu-linear", "mlp", {{"in", 4}, {"out", 2}, {"hidden", {3}}, {"activation", "relu"}, {"output", "linear"}}},
      {"autoencoder", "autoencoder", {{"in", 5}, {"out", 5}, {"encoder", "5-4-3-2"}, {"output", "logistic"}}},
      {"autoencoder/tanh-linear", "autoencoder",
       {{"in", 4}, {"out", 4}, {"encoder", "4-3-2"}, {"activation", "tanh"}, {"code", "logistic"}, {"output", "linear"}}},
  };
  return specs;
}

std::unique_ptr<models::Network> make_network(const NetworkSpec& spec, uint64_t seed) {
  const models::NetworkInfo* info = models::find_network(spec.network);
  if (!info) throw Error(fmt::format("no network named '{}'", spec.network));
  Rng rng(seed);
  auto net = info->make(models::resolve(*info, spec.options), DType::f64, rng);
  std::uniform_real_distribution<double> u(spec.lo, spec.hi);
  double* p = net->params().values().flat().data<double>();
  for (int64_t i = 0; i < net->params().numel(); ++i) p[i] = u(rng);
  return net;
}

tasks::Images tiny_images(const models::Network& net, int64_t B, uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> unit(0, 1);
  auto dense = [&](int64_t n) {
    Tensor x = Tensor::empty({B, n}, DType::f64);
    for (int64_t i = 0; i < x.size(); ++i) x.data<double>()[i] = unit(rng);
    return x;
  };
  tasks::Images b;
  b.inputs = dense(net.input_size());
  if (net.output_kind() == tasks::OutputKind::softmax) {
    std::vector<int32_t> labels(static_cast<size_t>(B));
    for (int32_t& y : labels) y = static_cast<int32_t>(rng() % static_cast<uint64_t>(net.output_size()));
    b.labels = ops::make_index(std::move(labels));
  } else {
    b.targets = dense(net.output_size());
  }
  if (net.has_dropout())
    for (const models::Network::Layer& l : net.layers()) {
      if (l.dropout == 0) {
        b.keep.emplace_back();
        continue;
      }
      Tensor k = dense(l.in);
      for (int64_t i = 0; i < k.size(); ++i) k.data<double>()[i] = k.data<double>()[i] < l.dropout ? 0 : 1 / (1 - l.dropout);
      b.keep.push_back(k);
    }
  return b;
}

Report check_network(const NetworkSpec& spec, const Options& opt) {
  try {
    std::unique_ptr<models::Network> net = make_network(spec);
    const tasks::Images b = tiny_images(*net);
    const models::Network& n = *net;
    Fn f = [&n, &b](Graph& g, std::span<const Var> theta) {
      g.bind(n.params(), theta);
      models::Network::Forward out = n.forward(g, g.input(b.inputs), b.keep);
      Var loss = models::network_loss(g, n.output_kind(), out.logits, b, static_cast<double>(b.size()));
      return std::vector<Var>{loss, out.logits};
    };
    return check_fn(f, ad::unpack(net->params().values()), opt);
  } catch (const std::exception& e) {  // a network that cannot even be built fails its row
    Report r;
    r.ok = false;
    r.failure = std::string("exception: ") + e.what();
    return r;
  }
}

namespace {
// The logits at parameters θ, as float64 values.
std::vector<double> logits_at(models::Network& net, const ParamVec& theta, const tasks::Images& b) {
  net.params().set_values(theta);
  Graph g;
  return net.forward(g, g.input(b.inputs), b.keep).logits.value().to_vector();
}

// H u for the matching loss's Hessian at logits z (rows of `out`), divided by `weight`, written out
// by hand: σ(1-σ) per unit (logistic), 1 (linear), diag(p) - p pᵀ per row (softmax).
std::vector<double> loss_hessian_times(tasks::OutputKind kind, const std::vector<double>& z, const std::vector<double>& u,
                                       int64_t out, double weight) {
  std::vector<double> hu(z.size());
  for (size_t row = 0; row < z.size() / static_cast<size_t>(out); ++row) {
    const size_t o = row * static_cast<size_t>(out);
    if (kind == tasks::OutputKind::softmax) {
      double top = -INFINITY, sum = 0, pu = 0;
      for (int64_t k = 0; k < out; ++k) top = std::max(top, z[o + k]);
      std::vector<double> p(static_cast<size_t>(out));
      for (int64_t k = 0; k < out; ++k) sum += p[k] = std::exp(z[o + k] - top);
      for (int64_t k = 0; k < out; ++k) pu += (p[k] /= sum) * u[o + k];
      for (int64_t k = 0; k < out; ++k) hu[o + k] = p[k] * (u[o + k] - pu) / weight;
    } else {
      for (int64_t k = 0; k < out; ++k) {
        const double s = 1 / (1 + std::exp(-z[o + k]));
        hu[o + k] = (kind == tasks::OutputKind::logistic ? s * (1 - s) : 1.0) * u[o + k] / weight;
      }
    }
  }
  return hu;
}
}  // namespace

Report check_network_gauss_newton(const NetworkSpec& spec) {
  Report r;
  try {
    std::unique_ptr<models::Network> net = make_network(spec);
    const tasks::Images b = tiny_images(*net);
    const double weight = static_cast<double>(b.size());
    const ParamVec theta = net->params().values().clone();
    Rng rng(3);
    const ParamVec v = ParamVec::random_normal(net->params().layout(), DType::f64, rng);
    // the engine: one linearization, G v at the logits block
    Graph g;
    g.bind(net->params());
    models::Network::Forward f = net->forward(g, g.input(b.inputs), b.keep);
    Var loss = models::network_loss(g, net->output_kind(), f.logits, b, weight);
    ad::Linearization lin(loss);
    const std::vector<double> engine = lin.gnvp(v, ad::Block{{f.logits}, loss}).flat().to_vector();
    // independently: J v and Jᵀ u by central differences, H by hand
    r = check_gauss_newton_product(
        engine, [&](const ParamVec& at) { return logits_at(*net, at, b); }, theta, v,
        [&](const std::vector<double>& z, const std::vector<double>& jv) {
          return loss_hessian_times(net->output_kind(), z, jv, net->output_size(), weight);
        });
  } catch (const std::exception& e) {
    r.ok = false;
    r.failure = std::string("exception: ") + e.what();
  }
  return r;
}

}  // namespace tg::check
