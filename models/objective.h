// ModelObjective: adapts any registered model and the matching loss of its output kind to the
// optimizers' Objective. It builds the curvature blocks HF needs: the logits with the training loss
// (Gauss-Newton), the hidden pre-activations with a matching head (structural damping), and optionally
// the per-sequence losses (empirical Fisher); and the graph-level regularisers.
#pragma once
#include <memory>
#include <string>

#include <nlohmann/json.hpp>

#include "models/model.h"
#include "models/noise.h"
#include "models/regularizers.h"
#include "optim/objective.h"

namespace tg::models {

struct ObjectiveOptions {
  // Structural damping's head on the hidden pre-activations u: "tanh" is the matching loss of tanh
  // units, Σ log cosh u, whose Hessian is diag(1 - tanh² u) (Martens & Sutskever 2011); "squared" is
  // ½ Σ u² (curvature J_uᵀ J_u). "none": no structural block.
  std::string structural = "tanh";
  bool fisher = false;            // build the per-sequence-loss block (empirical Fisher products)
  // Shorthand for stability_penalty {kind: norm, beta: β, skip_first: true}: Krueger & Memisevic's
  // β/T Σ_t (‖h_t‖ - ‖h_{t-1}‖)², mean over the batch. Setting both is an error.
  double norm_stabilizer = 0;
  StabilityPenalty stability;     // Krueger's norm-stabilizer or one of its alternatives (regularizers.h)
  double norm_preserving = 0;     // strength λ of Pascanu et al.'s Ω (second-order AD; 0: off)
  NoiseOptions noise;             // dropout on non-recurrent connections, weight noise (noise.h)
  bool check_finite = false;      // name the first node that yields NaN/Inf
  // Rematerialisation (gradient checkpointing, core/remat.h): 0 keeps the full tape; N >= 1 cuts the
  // unroll into N segments (at most T) that are recomputed for the gradient and each curvature
  // product, keeping only the N boundary states; -1 picks round(√T), the classical choice (see
  // core/remat.h for when more segments use less memory).
  // Needs a cell model; not with fisher.
  int64_t remat_segments = 0;
};

nlohmann::json to_json(const ObjectiveOptions& o);
ObjectiveOptions objective_options_from_json(const nlohmann::json& j);  // unknown keys are an error

// The total weight the training loss averages over: Σ loss masks, times the output size for
// elementwise (logistic / linear) outputs.
double loss_weight(const tasks::Batch& b, OutputKind kind, int64_t out_dim);

class ModelObjective : public optim::Objective {
 public:
  ModelObjective(std::unique_ptr<Model> model, ObjectiveOptions opt = {});
  const ParamSet& params() const override { return model_->params(); }
  // The evaluation keeps only the batch; with remat_segments it also reads the model when products
  // are taken, so the objective must outlive it (the optimizers' pattern).
  std::unique_ptr<optim::Evaluation> evaluate(const ParamVec& theta, const tasks::Data& d) override;
  double weight(const tasks::Data& d) const override {
    return loss_weight(tasks::data_as<tasks::Batch>(d), model_->output_kind(), model_->io().out);
  }
  void draw_noise(tasks::Data& d, Rng& rng) override {
    models::draw_noise(tasks::data_as<tasks::Batch>(d), opt_.noise, *model_, rng);
  }
  Model& model() { return *model_; }
  const ObjectiveOptions& options() const { return opt_; }
  // Each evaluation rebuilds the previous one's graph (core/tape_cache.h); off: a new graph each time.
  TapeCache& tape_cache() { return *cache_; }

 private:
  std::unique_ptr<optim::Evaluation> evaluate_remat(const tasks::Batch& b);
  GraphOptions graph_options() const;
  std::unique_ptr<Model> model_;
  ObjectiveOptions opt_;
  std::shared_ptr<TapeCache> cache_ = std::make_shared<TapeCache>();
};


}  // namespace tg::models
