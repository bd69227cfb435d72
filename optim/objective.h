// What optimizers see: an Objective (a loss over a flat parameter vector and a batch of data) and an
// Evaluation (one linearization of it: value, gradient and curvature products that reuse one primal
// pass). Optimizers never see models: HF, NAG, L-BFGS and the Riemannian methods differ only in which
// of these calls they make.
#pragma once
#include <functional>
#include <memory>
#include <optional>
#include <type_traits>
#include <vector>

#include "core/graph.h"
#include "core/linearize.h"
#include "core/params.h"
#include "core/tape_cache.h"
#include "tasks/data.h"

namespace tg::optim {

using tasks::Data;
using tasks::data_as;

// A graph built at some θ on some batch: the loss and its curvature blocks.
struct Built {
  Var loss;                           // scalar: the objective's value
  ad::Block curvature;                // the Gauss-Newton block: the logits the loss reads, loss
  std::optional<ad::Block> structural;  // hidden pre-activations with a matching head (structural damping)
  // Per-sequence losses ℓ_n (sums over the sequence's targets) with the head (N / 2W²) Σ_n ℓ_n², N
  // sequences, W = Objective::weight: its Gauss-Newton product is the empirical Fisher of the mean loss.
  std::optional<ad::Block> fisher;
  std::vector<Var> outputs;           // per-step model outputs (logits), for task metrics
  Var task_loss;                      // the loss without regularizer terms (what validation reports); empty: loss
};

class Evaluation {
 public:
  // With a cache, the graph goes back to it when the evaluation ends, for the objective's next
  // evaluation to rebuild (core/tape_cache.h).
  Evaluation(std::unique_ptr<Graph> g, Built built, std::shared_ptr<TapeCache> cache = nullptr);
  virtual ~Evaluation();
  Evaluation(const Evaluation&) = delete;
  Evaluation& operator=(const Evaluation&) = delete;
  virtual double value() const { return built_.loss.value().item(); }
  // The value without the objective's regularizer terms (Built::task_loss: Ω, stability penalties), what
  // a validation reports as its loss; the value itself where an objective does not separate them.
  virtual double task_value() const;
  // Cached after the first call. Shares its buffer with the evaluation's tape (the gradient's nodes are
  // evaluated into it): read it, or clone it before writing, while the evaluation lives.
  virtual ParamVec grad();
  virtual ParamVec gnvp(const ParamVec& v);               // G v, Gauss-Newton at the logits
  virtual ParamVec structural_gnvp(const ParamVec& v);    // G_S v (throws without a structural block)
  // G v + w G_S v: HF's damped Gauss-Newton product in one call (one sum over ranks when distributed;
  // on one tape, one forward and one reverse sweep for both blocks)
  virtual ParamVec gnvp_structural(const ParamVec& v, double w);
  virtual ParamVec hvp(const ParamVec& v);                // exact Hessian product
  virtual ParamVec fisher_vp(const ParamVec& v);          // empirical Fisher product
  virtual bool has_structural() const { return built_.structural.has_value(); }
  virtual std::vector<Tensor> output_values() const;      // per-step outputs as float64
  // The one tape behind this evaluation (throw for evaluations without one: RematEvaluation, and
  // evaluations combined across ranks in optim/distributed.h).
  ad::Linearization& linearization();
  Graph& graph();
  const Built& built() const;

 protected:
  Evaluation() = default;  // for subclasses that keep no single tape

 private:
  std::unique_ptr<Graph> g_;
  Built built_;
  std::unique_ptr<ad::Linearization> lin_;
  std::optional<ParamVec> grad_;
  std::shared_ptr<TapeCache> cache_;
};

class Objective {
 public:
  virtual ~Objective() = default;
  virtual const ParamSet& params() const = 0;  // layout, dtype and the initial values
  // The evaluation may read θ's buffer instead of a copy of it: leave θ unchanged while the evaluation
  // lives (an optimizer's step makes a new vector; it never writes the one it evaluated at).
  virtual std::unique_ptr<Evaluation> evaluate(const ParamVec& theta, const Data& b) = 0;
  virtual double value(const ParamVec& theta, const Data& b) { return evaluate(theta, b)->value(); }
  // Sequences a forward pass over b touches (for "minibatches processed" accounting).
  virtual int64_t cost(const Data& b) const { return b.size(); }
  // The weight the loss averages over on b (the loss is a mean over it), so that chunks of a batch
  // combine into the batch's loss: Σ weight_c loss_c / Σ weight_c.
  virtual double weight(const Data& b) const { return static_cast<double>(b.size()); }
  // Attaches this training iteration's noise (dropout masks, weight noise) to a freshly drawn batch,
  // drawing from `rng`; the noise then travels with the batch and its slices. No-op by default.
  virtual void draw_noise(Data&, Rng&) {}
  // The trainer's iteration (0-based), told before each step: for objectives with a schedule of their
  // own (the temporal RBMs' CD-k). No-op by default.
  virtual void at_iteration(int64_t) {}
};

namespace detail {
// The data type D of a builder's call operator Built(Graph&, const D&) (const or mutable lambdas).
template <class M>
struct builder_data {};
template <class C, class D>
struct builder_data<Built (C::*)(Graph&, const D&) const> {
  using type = D;
};
template <class C, class D>
struct builder_data<Built (C::*)(Graph&, const D&)> {
  using type = D;
};
}  // namespace detail

// An objective given by a graph builder over a ParamSet (bound into the graph at θ).
class GraphObjective : public Objective {
 public:
  using Builder = std::function<Built(Graph& g, const Data& d)>;
  GraphObjective(ParamSet params, Builder build, GraphOptions options = {});
  // A builder written for one kind of data (Built(Graph&, const MyData&)): the objective reads its
  // data with data_as<MyData>, so other data is a clear error naming both kinds.
  template <class F, class D = typename detail::builder_data<decltype(&F::operator())>::type>
    requires(!std::is_same_v<D, Data>)
  GraphObjective(ParamSet params, F build, GraphOptions options = {})
      : GraphObjective(std::move(params),
                       Builder([build = std::move(build)](Graph& g, const Data& d) { return build(g, data_as<D>(d)); }),
                       options) {}
  const ParamSet& params() const override { return params_; }
  std::unique_ptr<Evaluation> evaluate(const ParamVec& theta, const Data& b) override;
  TapeCache& tape_cache() { return *cache_; }  // on by default; off: a new graph per evaluation

 private:
  ParamSet params_;
  Builder build_;
  GraphOptions options_;
  std::shared_ptr<TapeCache> cache_ = std::make_shared<TapeCache>();
};

}  // namespace tg::optim
