// Registration hooks of the op families (ops/registry.cc calls each; no static self-registration,
// which linkers drop from static libraries).
#pragma once
#include <vector>

#include "core/primitive.h"
#include "core/site.h"
#include "core/var.h"

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
void register_packed_matmul(std::vector<const Primitive*>& r);   // ops/packed_matmul.cc
}  // namespace tg::ops

namespace tg::ops {
// The linear primitives whose sums the reverse sweep regroups into one node (core/ad.cc,
// sum_contributions): named objects, so the engine needs no look-up by name.
extern const Primitive matmul_p;
extern const Primitive addmm_p;
extern const Primitive addmm_packed_p;  // addmm from B's packed copy (ops/packed_matmul.cc)
extern const Primitive pad_p;
extern const Primitive scatter_add_rows_p;

// A weight of this many elements or more that several products read gets the shared-weight treatments:
// transposed once for its VJP's products (ops/linalg.cc), packed once for its products (ops/packed_matmul.cc),
// its tangent products stacked into one (core/ad.cc). Smaller weights' products are OpenBLAS's small
// kernels, where the extra nodes cost more than they save.
constexpr int64_t kSharedWeightMin = 4096;
}  // namespace tg::ops

namespace tg::ops {
// B's packed copy for the product A B (ops/packed_matmul.cc), or an empty Var where it is not packed.
Var packed_operand(Var a, Var b, Site site);
// B [k,n] packed for products with `rows` rows: a flat float buffer (ops/packed_gemm.h), no derivative.
Var gemm_pack(Var b, int64_t rows, Site site);
// C + A B computed from p = packed_operand(A, B) or gemm_pack(B, rows of A).
Var addmm_packed(Var c, Var a, Var b, Var p, Site site);
}  // namespace tg::ops
