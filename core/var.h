// Var: a cheap handle {Graph*, node id} with operators, so model code reads like the equations.
// An empty Var is a symbolic zero: ops given one return empty or drop it, so tangents of data cost nothing.
#pragma once
#include <cstdint>

#include "core/dtype.h"
#include "core/shape.h"
#include "core/site.h"

namespace tg {

class Graph;
class Tensor;

class Var {
 public:
  Var() = default;
  Var(Graph* g, int32_t id) : g_(g), id_(id) {}
  bool empty() const { return g_ == nullptr; }
  Graph* graph() const { return g_; }
  int32_t id() const { return id_; }
  Shape shape() const;  // by value: building nodes may move the tape under a reference
  DType dtype() const;
  const Tensor& value() const;  // throws if the node has no value yet (a segment placeholder)
  bool operator==(const Var& o) const { return g_ == o.g_ && id_ == o.id_; }

 private:
  Graph* g_ = nullptr;
  int32_t id_ = -1;
};

// VarAt carries the caller's Site into operators, which cannot take a defaulted Site parameter:
// the default argument of this converting constructor is evaluated at the operator's call site.
struct VarAt {
  Var v;
  Site site;
  VarAt(Var v_, Site s = Site::current()) : v(v_), site(s) {}  // NOLINT: implicit by design
};

Var operator+(VarAt a, Var b);
Var operator-(VarAt a, Var b);
Var operator*(VarAt a, Var b);
Var operator/(VarAt a, Var b);
Var operator-(VarAt a);
Var operator+(VarAt a, double b);
Var operator-(VarAt a, double b);
Var operator*(VarAt a, double b);
Var operator/(VarAt a, double b);
Var operator+(double a, VarAt b);
Var operator-(double a, VarAt b);
Var operator*(double a, VarAt b);
Var operator/(double a, VarAt b);

}  // namespace tg
