// Linearization: one primal evaluation, then any number of JVP / VJP / Gauss-Newton / Hessian products
// that reuse the cached primal values (the inner loop of conjugate gradient never re-runs the forward
// pass).
//
// Each kind of product is a Segment: placeholders for its input, derivative nodes appended to the tape
// once, on first use. Building a segment evaluates at once every node in it that depends on primal
// values only (tanh's 1 - y², softmax probabilities, transposed weights); a call then sets the
// placeholders and re-runs only the nodes that depend on them. Residual memory grows with the tape, as
// in BPTT; release() drops the tape's values.
#pragma once
#include <functional>
#include <map>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "core/ad.h"
#include "core/graph.h"
#include "core/params.h"

namespace tg::ad {

// A tail of the tape that maps placeholder values to output values.
class Segment {
 public:
  Segment(Graph& g, int32_t begin, std::vector<Var> placeholders, std::vector<Var> outputs,
          std::vector<Shape> output_shapes);
  std::vector<Tensor> run(std::span<const Tensor> inputs);
  size_t dynamic_nodes() const { return dyn_.size(); }

 private:
  Graph* g_;
  std::vector<Var> ph_, out_;
  std::vector<Shape> out_shapes_;
  std::vector<int32_t> dyn_;
};

// A curvature block: a scalar `head` (a loss on the tape) that depends on the tagged nodes `at`.
// Its Gauss-Newton product is J_atᵀ H_head J_at v, with H_head from differentiating the head twice.
// The logits with the training loss form the main block; hidden pre-activations with a matching loss
// form structural damping's block.
struct Block {
  std::vector<Var> at;
  Var head;
};

class Linearization {
 public:
  // wrt: the leaves (usually parameters) products are taken with respect to; loss: a scalar node.
  Linearization(std::vector<Var> wrt, Var loss);
  // Over the ParamSet bound to loss's graph: products take and return ParamVec.
  explicit Linearization(Var loss);

  Graph& graph() { return *loss_.graph(); }
  double value() const { return loss_.value().item(); }
  const std::vector<Var>& wrt() const { return wrt_; }

  // Per-wrt tensors.
  const std::vector<Tensor>& grad();                                                  // d loss / d wrt
  std::vector<Tensor> jvp(std::span<const Tensor> v, const std::vector<Var>& at);    // tangents at `at`
  std::vector<Tensor> vjp(const std::vector<Var>& at, std::span<const Tensor> u,
                          const std::vector<Var>& read = {});  // cotangents at wrt, then adjoints at `read`
  std::vector<Tensor> hvp(std::span<const Tensor> v);                                 // H v
  std::vector<Tensor> gnvp(std::span<const Tensor> v, const Block& block);           // Jᵀ H_head J v
  // Σ_k w_k J_kᵀ H_k J_k v in one forward and one reverse sweep (HF's G v + λμ G_S v): the weights are
  // inputs of the segment, so a new w (λ changes every iteration) reuses it.
  std::vector<Tensor> gnvp(std::span<const Tensor> v, std::span<const Block> blocks, std::span<const double> weights);

  // ParamVec versions (need the bound-ParamSet constructor).
  ParamVec grad_vec();  // over the bound set: one vector, shared with the gradient nodes' values (read only)
  ParamVec hvp(const ParamVec& v);
  ParamVec gnvp(const ParamVec& v, const Block& block);
  ParamVec gnvp(const ParamVec& v, std::span<const Block> blocks, std::span<const double> weights);

  // Evaluations of primal nodes since construction, beyond the first (tests prove it stays 0).
  uint64_t primal_reevaluations() const;
  size_t segments() const { return segments_.size(); }

 private:
  Segment& segment(const std::string& key, const std::function<Segment()>& build);
  std::vector<Var> make_placeholders(const std::vector<Var>& like);
  std::vector<Tensor> to_parts(const ParamVec& v) const;
  ParamVec to_vec(const std::vector<Tensor>& parts) const;

  std::vector<Var> wrt_;
  Var loss_;
  int32_t primal_end_;
  uint64_t primal_evals_at_start_ = 0;
  std::vector<Var> grad_vars_;
  std::vector<Tensor> grad_;
  bool over_params_ = false;  // built by Linearization(loss): wrt are the bound set's leaves, in order
  ParamVec grad_flat_;        // then the gradient's parts are evaluated into this vector (grad_vec)
  std::map<std::string, std::unique_ptr<Segment>> segments_;
};

}  // namespace tg::ad
