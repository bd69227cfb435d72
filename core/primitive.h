// Primitive: one op with all its rules in one place: shape rule, kernel, JVP rule and VJP rule.
// The JVP and VJP rules emit graph nodes through the public ops, so derivatives are graphs too and can
// be differentiated again (JAX's and tinygrad's lesson; DyNet's numeric backward cannot).
#pragma once
#include <cstdint>
#include <memory>
#include <span>
#include <vector>

#include "core/shape.h"
#include "core/site.h"
#include "core/tensor.h"
#include "core/var.h"

namespace tg {

// Static attributes of a node (not differentiated).
struct Attrs {
  double scalar = 0;          // scale factor, exponent, fill value
  int axis = 0;               // reductions, slice, concat, softmax
  int64_t begin = 0, end = 0; // slice bounds along `axis`
  bool ta = false, tb = false;// matmul: transpose A / B
  Shape shape;                // broadcast_to / reshape / sum_to / pad target
  std::shared_ptr<const std::vector<int32_t>> index;  // gather / scatter_add / one_hot rows
};

struct EvalArgs {
  std::span<const Tensor* const> in;
  const Attrs& attrs;
  const Shape& shape;  // output shape, already checked
  DType dtype;         // output dtype
  // When set (Graph::place): a tensor of the output's shape and dtype that the kernel may write its
  // result into and return, e.g. a parameter's part of the flat gradient vector. Kernels may ignore it.
  Tensor* out = nullptr;
};

struct RuleArgs {
  std::span<const Var> x;  // primal inputs
  Var y;                   // primal output
  const Attrs& attrs;
  Site site;               // the primal node's site: derivative nodes point at the user's code too
};

using ShapeRule = Shape (*)(std::span<const Shape> in, const Attrs& attrs);  // throws ShapeError(detail)
using EvalRule = Tensor (*)(const EvalArgs& args);
// Tangent of y given input tangents (an empty Var is a symbolic zero; not all are empty).
using JvpRule = Var (*)(const RuleArgs& a, std::span<const Var> x_dot);
// Cotangents of the inputs given y_bar; fill x_bar[i] only where need[i] (leave empty for zero).
using VjpRule = void (*)(const RuleArgs& a, Var y_bar, std::span<const bool> need, std::span<Var> x_bar);

struct Primitive {
  const char* name;
  int arity;              // -1: variadic (>= 1), 0: leaf
  ShapeRule shape;
  EvalRule eval;
  JvpRule jvp;            // nullptr: not differentiable (integer-valued or constant output)
  VjpRule vjp;
  bool differentiable = true;  // false: outputs have zero derivative (one_hot, masks, stop_gradient)
};

}  // namespace tg
