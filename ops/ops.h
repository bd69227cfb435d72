// The user-facing op API, one line per op with its shapes. Every op checks shapes when the node is
// built and takes the caller's Site last, so an error names the op, the shapes and the user's file:line.
// Linear ops accept empty Vars (symbolic zeros): add(a, {}) == a, matmul({}, w) == {}.
#pragma once
#include <cstdint>
#include <memory>
#include <span>
#include <vector>

#include "core/graph.h"
#include "core/site.h"
#include "core/var.h"

namespace tg::ops {

using Index = std::shared_ptr<const std::vector<int32_t>>;
Index make_index(std::vector<int32_t> rows);

// ---- constants -------------------------------------------------------------------------------
Var constant(Graph& g, Tensor value, Site site = Site::current());                       // leaf
Var fill(Graph& g, const Shape& s, double v, DType dt, Site site = Site::current());     // [s] filled with v
Var zeros_like(Var x, Site site = Site::current());
Var ones_like(Var x, Site site = Site::current());
Var one_hot(Graph& g, Index idx, int64_t depth, DType dt, Site site = Site::current());  // [M] -> [M,depth]

// ---- arithmetic, numpy broadcasting ----------------------------------------------------------
Var add(Var a, Var b, Site site = Site::current());  // [*a] + [*b] -> [broadcast(a,b)]
Var sub(Var a, Var b, Site site = Site::current());
Var mul(Var a, Var b, Site site = Site::current());
Var div(Var a, Var b, Site site = Site::current());
Var neg(Var x, Site site = Site::current());
Var scale(Var x, double c, Site site = Site::current());       // c * x
Var add_scalar(Var x, double c, Site site = Site::current());  // x + c
Var rsub_scalar(Var x, double c, Site site = Site::current()); // c - x

// ---- elementwise nonlinearities [*] -> [*] ----------------------------------------------------
Var exp(Var x, Site site = Site::current());
Var log(Var x, Site site = Site::current());
Var tanh(Var x, Site site = Site::current());
Var logistic(Var x, Site site = Site::current());  // 1 / (1 + e^-x)
Var relu(Var x, Site site = Site::current());
Var square(Var x, Site site = Site::current());
Var sqrt(Var x, Site site = Site::current());
Var abs(Var x, Site site = Site::current());       // subgradient sign(0) = 0
Var sin(Var x, Site site = Site::current());
Var cos(Var x, Site site = Site::current());
Var pow(Var x, double p, Site site = Site::current());
Var sign(Var x, Site site = Site::current());      // zero derivative
Var step(Var x, Site site = Site::current());      // 1[x > 0], zero derivative
Var greater(Var a, Var b, Site site = Site::current());  // 1[a > b] with broadcasting, zero derivative
Var softplus(Var x, Site site = Site::current());  // log(1 + e^x), stable (composite)

// ---- linear algebra --------------------------------------------------------------------------
// [m,k] x [k,n] -> [m,n]; ta / tb use A^T / B^T without copying (BLAS transposes)
Var matmul(Var a, Var b, bool ta = false, bool tb = false, Site site = Site::current());
// C + op(A) op(B) in one product (BLAS beta = 1); C of the product's shape, else add(C, matmul(A, B))
Var addmm(Var c, Var a, Var b, bool ta = false, bool tb = false, Site site = Site::current());
Var transpose(Var x, Site site = Site::current());  // [m,n] -> [n,m]

// ---- reductions and broadcasting -------------------------------------------------------------
Var sum(Var x, Site site = Site::current());                                 // [*] -> []
Var sum(Var x, int axis, bool keepdims = false, Site site = Site::current()); // drops (or keeps 1 at) axis
Var mean(Var x, Site site = Site::current());
Var mean(Var x, int axis, bool keepdims = false, Site site = Site::current());
Var max(Var x, int axis, bool keepdims = false, Site site = Site::current()); // subgradient at the first argmax
Var argmax_mask(Var x, int axis, Site site = Site::current());  // one-hot of the first argmax along axis
Var broadcast_to(Var x, const Shape& s, Site site = Site::current());  // numpy rules
Var sum_to(Var x, const Shape& s, Site site = Site::current());        // adjoint of broadcast_to

// ---- shape ops -------------------------------------------------------------------------------
Var reshape(Var x, const Shape& s, Site site = Site::current());
Var slice(Var x, int axis, int64_t begin, int64_t end, Site site = Site::current());  // [begin,end) on axis
Var pad(Var x, int axis, int64_t begin, const Shape& out, Site site = Site::current()); // adjoint of slice
Var concat(std::span<const Var> xs, int axis, Site site = Site::current());
std::vector<Var> split(Var x, int axis, std::span<const int64_t> sizes, Site site = Site::current());
std::vector<Var> split(Var x, int axis, int parts, Site site = Site::current());      // equal parts
Var gather_rows(Var x, Index idx, Site site = Site::current());                 // [N,D],[M] -> [M,D]
// When xs are adjacent slices of one node along axis (>= 0), in order: that node's slice from the first's
// begin to the last's end (a view; the node itself when they cover it), which concat(xs) equals in value
// but not in the graph (the slices are then not on the path from it). Empty otherwise.
Var rejoined_slices(std::span<const Var> xs, int axis, Site site = Site::current());
Var pick_columns(Var x, Index idx, Site site = Site::current());                // [M,D],[M] -> [M]: x[m, idx[m]]
Var put_columns(Var x, Index idx, int64_t depth, Site site = Site::current());  // [M],[M] -> [M,depth], zeros elsewhere
Var scatter_add_rows(Var x, Index idx, int64_t rows, Site site = Site::current()); // [M,D],[M] -> [rows,D]
Var where(Var cond, Var a, Var b, Site site = Site::current());  // cond ? a : b, all one shape, cond 0/1
Var stop_gradient(Var x, Site site = Site::current());           // identity, zero derivative

// ---- fused cells ---------------------------------------------------------------------------
// The standard LSTM memory update in one pass. a [B,4H] holds the gate pre-activations [i, f, o, g],
// c_prev [B,H]; the result [2B,H] stacks c = σ(a_f) c_prev + σ(a_i) tanh(a_g) (rows [0,B)) and
// h = σ(a_o) tanh(c) (rows [B,2B)): slice(y, 0, 0, B) and slice(y, 0, B, 2B) are views, not copies.
Var lstm_cell(Var a, Var c_prev, Site site = Site::current());
// lstm_cell's VJP: y_bar [2B,H] -> [5B,H], rows [0,4B) the cotangent of a (reshape to [B,4H]),
// rows [4B,5B) that of c_prev.
Var lstm_cell_vjp(Var a, Var c_prev, Var y_bar, Site site = Site::current());
// lstm_cell's JVP given the factors k [6B,H] of its linear map (six [B,H] blocks k0..k5):
// [dc; dh] with dc = k0 da_i + k1 da_f + k2 da_g + k3 dc_prev, dh = k4 dc + k5 da_o.
Var lstm_cell_jvp(Var k, Var da, Var dc_prev, Site site = Site::current());
// Its transpose in (da, dc_prev): y_bar [2B,H] -> [5B,H] laid out as lstm_cell_vjp's result.
Var lstm_cell_transpose(Var k, Var y_bar, Site site = Site::current());
// The GRU update h' = σ(a_z) h + (1 - σ(a_z)) tanh(u) in one pass (a_z, u, h and h' [B,H]).
Var gru_update(Var a_z, Var u, Var h, Site site = Site::current());
// gru_update's VJP: y_bar [B,H] -> [3B,H], the cotangents of a_z, u and h stacked (slices are views).
Var gru_update_vjp(Var a_z, Var u, Var h, Var y_bar, Site site = Site::current());
// Recurrences as one node (ops/scan.cc), the steps stacked in rows (step t: rows [t·B, (t+1)·B)):
// q_t = u_t + z_prev W, z_t = q_t ⊙ a_t + c_t with U, A, C [n·B,H], W [H,H], z0 [B,H] -> [Z; Q] [2·n·B,H]
// (reverse: z_prev = z_{t+1}, the scan runs from the last step);
Var linear_scan(Var u, Var w, Var a, Var c, Var z0, bool reverse = false, Site site = Site::current());
// p_t = u_t + h_prev W, h_t = tanh(p_t): U [n·B,H], W [H,H], h0 [B,H] -> [H; P] [2·n·B,H]; and the same with
// logistic or relu units.
Var tanh_scan(Var u, Var w, Var h0, bool reverse = false, Site site = Site::current());
Var logistic_scan(Var u, Var w, Var h0, bool reverse = false, Site site = Site::current());
Var relu_scan(Var u, Var w, Var h0, bool reverse = false, Site site = Site::current());
// The VJPs of logistic and tanh from their output y in one pass: y_bar y (1 - y) and y_bar (1 - y^2).
Var logistic_vjp(Var y, Var y_bar, Site site = Site::current());
Var tanh_vjp(Var y, Var y_bar, Site site = Site::current());

// ---- composites (no derivative code: the engine differentiates them) ---------------------------
Var softmax(Var x, int axis = -1, Site site = Site::current());
Var log_softmax(Var x, int axis = -1, Site site = Site::current());
Var logsumexp(Var x, int axis = -1, bool keepdims = false, Site site = Site::current());
Var l2norm(Var x, Site site = Site::current());  // sqrt(sum x^2) with gradient 0 at x = 0

}  // namespace tg::ops

namespace tg::losses {
using ops::Index;
// Softmax cross-entropy with integer targets: logits [N,V], targets [N], optional mask [N] (0/1 or
// weights). Returns the mean over the mask's total weight (or the sum with mean=false), in nats.
Var softmax_xent(Var logits, Index targets, Var mask = {}, bool mean = true, Site site = Site::current());
// Logistic (sigmoid) binary cross-entropy from logits; targets in [0,1], same shape; optional mask.
Var sigmoid_bce(Var logits, Var targets, Var mask = {}, bool mean = true, Site site = Site::current());
// 0.5 * (pred - target)^2, optional mask, mean over the mask weight or sum.
Var squared_error(Var pred, Var target, Var mask = {}, bool mean = true, Site site = Site::current());
}  // namespace tg::losses
