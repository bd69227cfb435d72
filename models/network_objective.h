// NetworkObjective: a feedforward network (models/network.h) and the matching loss of its output kind
// as the optimizers' Objective over tasks::Images. Its curvature block is the logits with the loss
// (Gauss-Newton); with `fisher`, also the per-image losses (empirical Fisher products). Training-time
// dropout masks are drawn per batch (draw_noise) and travel with it, like the sequence models'.
#pragma once
#include <memory>

#include <nlohmann/json.hpp>

#include "models/network.h"
#include "optim/objective.h"
#include "tasks/images.h"

namespace tg::models {

struct NetworkObjectiveOptions {
  // What the loss is a mean over: "cases" sums each image's loss over its output units and averages
  // over the images (Martens 2010, Sutskever Ch. 7: their learning rates assume it); "outputs" averages
  // over every output unit (PyTorch's BCEWithLogitsLoss / MSELoss default). Softmax: the same.
  std::string mean_over = "cases";
  bool fisher = false;        // build the per-image-loss block (empirical Fisher products)
  bool check_finite = false;  // name the first node that yields NaN/Inf
};
nlohmann::json to_json(const NetworkObjectiveOptions& o);
NetworkObjectiveOptions network_objective_options_from_json(const nlohmann::json& j);  // unknown keys are an error

// The matching loss of `kind` for logits z [N, out] on b's targets (labels for softmax, else dense
// targets), summed over the outputs and the images and divided by `weight`.
Var network_loss(Graph& g, tasks::OutputKind kind, Var z, const tasks::Images& b, double weight);

class NetworkObjective : public optim::Objective {
 public:
  NetworkObjective(std::unique_ptr<Network> net, NetworkObjectiveOptions opt = {});
  const ParamSet& params() const override { return net_->params(); }
  std::unique_ptr<optim::Evaluation> evaluate(const ParamVec& theta, const tasks::Data& d) override;
  // The number the loss is a mean over: images, or images × output units (mean_over "outputs").
  double weight(const tasks::Data& d) const override;
  void draw_noise(tasks::Data& d, Rng& rng) override;
  Network& network() { return *net_; }
  const NetworkObjectiveOptions& options() const { return opt_; }

 private:
  std::unique_ptr<Network> net_;
  NetworkObjectiveOptions opt_;
};

}  // namespace tg::models
