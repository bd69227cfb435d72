// Autodiff transforms over the tape: jvp (forward mode, Pearlmutter's R-op), vjp with seeds at any
// nodes and adjoints at any nodes, grad and value_and_grad. Each appends derivative nodes to the
// same graph (built from the primitives' graph-valued rules), so the results can be differentiated
// again. Model-agnostic: they see nodes, never models.
#pragma once
#include <span>
#include <utility>
#include <vector>

#include "core/graph.h"
#include "core/params.h"

namespace tg::ad {

// Tangents at `outputs` given tangents at `inputs` (any nodes; an empty tangent is a zero).
// An output that does not depend on the inputs gets an empty Var (a symbolic zero).
std::vector<Var> jvp(std::span<const Var> outputs, std::span<const Var> inputs, std::span<const Var> tangents);

// A cotangent placed at any node (the loss, or an intermediate such as a hidden pre-activation).
struct Seed {
  Var at;
  Var cotangent;
};
// Adjoints at `wrt` (leaves or intermediates): the total derivative of sum_s <seed_s, at_s> with
// respect to each wrt node. Empty Var where the seeds do not depend on it.
// With `independent`, the wrt nodes are treated as independent variables: cotangents stop at them
// instead of flowing on through one wrt node into another (the hidden pre-activations of an RNN
// feed each other; a curvature block's head is a function of them taken separately).
// `into` (empty, or one tensor per wrt node, undefined to skip): where results evaluated by this call
// put their values (Graph::place), e.g. the parts of a flat gradient vector.
std::vector<Var> vjp(std::span<const Seed> seeds, std::span<const Var> wrt, bool independent = false,
                     std::span<const Tensor> into = {});

// Gradient of a scalar node (`into` as for vjp).
std::vector<Var> grad(Var y, std::span<const Var> wrt, std::span<const Tensor> into = {});

// Zeros for an empty (symbolic zero) derivative, else the node's value.
Tensor value_or_zeros(Var v, const Shape& shape, DType dt);

// ParamVec <-> per-parameter tensors, in the layout of `ps`.
ParamVec pack(const ParamSet& ps, std::span<const Tensor> parts);
// The same into v (ps's layout): parts already in their place in v's buffer are not copied.
void pack_into(ParamVec& v, const ParamSet& ps, std::span<const Tensor> parts);
std::vector<Tensor> unpack(const ParamVec& v);

// Loss value and gradient over the parameters bound to the loss's graph (g.bind(ps)).
// The gradient shares its buffer with the gradient nodes' values on the tape: clone it before writing
// while the graph is still used.
std::pair<double, ParamVec> value_and_grad(Var loss);

}  // namespace tg::ad
