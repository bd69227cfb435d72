// Registration hooks of the op families (ops/registry.cc calls each; no static self-registration,
// which linkers drop from static libraries).
#pragma once
#include <vector>

#include "core/primitive.h"

namespace tg::ops {
void register_arith(std::vector<const Primitive*>& r);
void register_elementwise(std::vector<const Primitive*>& r);
void register_linalg(std::vector<const Primitive*>& r);
void register_reduce(std::vector<const Primitive*>& r);
void register_shape(std::vector<const Primitive*>& r);
void register_fused(std::vector<const Primitive*>& r);  // fused cells (ops/lstm_cell.cc)
}  // namespace tg::ops
