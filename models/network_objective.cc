#include "models/network_objective.h"

#include <fmt/format.h>

#include "core/error.h"
#include "core/options.h"
#include "models/loss.h"
#include "tasks/random.h"

namespace tg::models {

nlohmann::json to_json(const NetworkObjectiveOptions& o) {
  return {{"mean_over", o.mean_over}, {"fisher", o.fisher}, {"check_finite", o.check_finite}};
}

NetworkObjectiveOptions network_objective_options_from_json(const nlohmann::json& j) {
  const nlohmann::json full = merge_options("objective (of a network)", to_json(NetworkObjectiveOptions{}), j,
                                            /*check_kinds=*/true);
  NetworkObjectiveOptions o{full["mean_over"].get<std::string>(), full["fisher"].get<bool>(), full["check_finite"].get<bool>()};
  if (o.mean_over != "cases" && o.mean_over != "outputs")
    throw Error(fmt::format("objective: mean_over must be cases or outputs, not '{}'", o.mean_over));
  return o;
}

NetworkObjective::NetworkObjective(std::unique_ptr<Network> net, NetworkObjectiveOptions opt)
    : net_(std::move(net)), opt_(opt) {
  if (!net_) throw Error("objective: no network");
}

double NetworkObjective::weight(const tasks::Data& d) const {
  const double n = static_cast<double>(d.size());
  const bool per_output = opt_.mean_over == "outputs" && net_->output_kind() != tasks::OutputKind::softmax;
  return per_output ? n * static_cast<double>(net_->output_size()) : n;
}

void NetworkObjective::draw_noise(tasks::Data& d, Rng& rng) {
  if (!net_->has_dropout()) return;  // no masks: no random numbers drawn
  tasks::Images& b = tasks::data_as<tasks::Images>(d);
  b.keep.clear();
  for (const Network::Layer& l : net_->layers()) {
    if (l.dropout == 0) {
      b.keep.emplace_back();
      continue;
    }
    // keep with probability 1 - p, scaled by 1/(1 - p) so that evaluation needs no rescaling
    Tensor k = Tensor::empty({b.size(), l.in}, DType::f32);
    float* v = k.data<float>();
    const float kept = static_cast<float>(1.0 / (1.0 - l.dropout));
    for (int64_t i = 0; i < k.size(); ++i) v[i] = tasks::uniform01(rng) < l.dropout ? 0.0f : kept;
    b.keep.push_back(k);
  }
}

Var network_loss(Graph& g, tasks::OutputKind kind, Var z, const tasks::Images& b, double weight) {
  const bool softmax = kind == tasks::OutputKind::softmax;
  if (softmax ? !b.labels : !b.targets.raw())
    throw Error(fmt::format("objective: {} outputs, but {} has no {}", tasks::output_kind_name(kind), b.describe(),
                            softmax ? "class labels" : "dense targets"));
  if (!softmax && b.targets.shape() != z.shape())
    throw Error(fmt::format("objective: targets of shape {} for outputs of shape {}", b.targets.shape().str(),
                            z.shape().str()));
  Var y = softmax ? Var{} : g.input(b.targets.astype(z.dtype()));
  Var sum = softmax ? losses::softmax_xent(z, b.labels, Var{}, false)
            : kind == tasks::OutputKind::logistic ? losses::sigmoid_bce(z, y, Var{}, false)
                                                  : losses::squared_error(z, y, Var{}, false);
  return ops::scale(sum, 1.0 / weight);
}

std::unique_ptr<optim::Evaluation> NetworkObjective::evaluate(const ParamVec& theta, const tasks::Data& d) {
  const tasks::Images& b = tasks::data_as<tasks::Images>(d);
  if (b.size() < 1) throw Error("objective: an empty batch of images");
  auto g = std::make_unique<Graph>(GraphOptions{.check_finite = opt_.check_finite});
  // θ read in place when it has the parameters' dtype (Objective::evaluate's contract: the caller leaves it
  // unchanged while the evaluation lives); params() keeps the initial values
  if (theta.dtype() == net_->params().dtype())
    g->bind_shared(net_->params(), theta);
  else
    g->bind(net_->params(), theta);
  const DType dt = net_->params().dtype();
  Var x = g->input(b.inputs.astype(dt));
  Network::Forward f = net_->forward(*g, x, b.keep);
  const tasks::OutputKind kind = net_->output_kind();
  const bool softmax = kind == tasks::OutputKind::softmax;
  Var loss = network_loss(*g, kind, f.logits, b, weight(b));
  optim::Built built;
  built.loss = loss;
  built.curvature = ad::Block{{f.logits}, loss};
  built.outputs = {f.logits};
  if (opt_.fisher) {
    // per-image losses ℓ_n; the empirical Fisher of the mean loss is the GN of (N / 2W²) Σ ℓ_n² (as for sequences)
    Var y = softmax ? Var{} : g->input(b.targets.astype(dt));
    Var per = per_row_loss(kind, f.logits, b.labels, y);
    const double n = static_cast<double>(b.size()), w = weight(b);
    built.fisher = ad::Block{{per}, ops::scale(ops::sum(ops::square(per)), n / (2 * w * w))};
  }
  return std::make_unique<optim::Evaluation>(std::move(g), std::move(built));
}

}  // namespace tg::models
