#include "ops/registry.h"

#include <cstring>

#include "ops/families.h"

namespace tg::ops {

const std::vector<const Primitive*>& primitives() {
  static const std::vector<const Primitive*> all = [] {
    std::vector<const Primitive*> r;
    register_arith(r);
    register_elementwise(r);
    register_linalg(r);
    register_reduce(r);
    register_shape(r);
    register_fused(r);
    register_gru_update(r);
    register_scan(r);
    register_packed_matmul(r);
    register_activation_vjp(r);
    return r;
  }();
  return all;
}

const Primitive* find_primitive(const std::string& name) {
  for (const Primitive* p : primitives())
    if (name == p->name) return p;
  return nullptr;
}

const std::vector<std::string>& composites() {
  static const std::vector<std::string> all = {"mean",         "mean_axis",   "split",         "softmax",
                                               "log_softmax",  "logsumexp",   "l2norm",        "softmax_xent",
                                               "sigmoid_bce",  "squared_error"};
  return all;
}

}  // namespace tg::ops
