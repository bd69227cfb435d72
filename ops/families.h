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
void register_gru_update(std::vector<const Primitive*>& r);  // ops/gru_update.cc
void register_activation_vjp(std::vector<const Primitive*>& r);  // ops/activation_vjp.cc
void register_scan(std::vector<const Primitive*>& r);            // ops/scan.cc
}  // namespace tg::ops

namespace tg::ops {
// The linear primitives whose sums the reverse sweep regroups into one node (core/ad.cc,
// sum_contributions): named objects, so the engine needs no look-up by name.
extern const Primitive matmul_p;
extern const Primitive addmm_p;
extern const Primitive pad_p;
extern const Primitive scatter_add_rows_p;
}  // namespace tg::ops
