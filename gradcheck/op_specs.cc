#include "gradcheck/op_specs.h"

#include "ops/families.h"
#include "ops/ops.h"
#include "ops/sample.h"

namespace tg::check {

namespace {
using V = std::vector<Var>;
using In = std::span<const Var>;

// A fixed 0/1 mask of the given shape (a data constant, not differentiated).
Var mask(Graph& g, const Shape& s) {
  Tensor m = Tensor::empty(s, DType::f64);
  for (int64_t i = 0; i < m.size(); ++i) m.data<double>()[i] = (i * 7 + 3) % 5 < 3 ? 1.0 : 0.0;
  return g.input(m);
}
Var data(Graph& g, const Shape& s, double lo, double hi, uint64_t seed) {
  return g.input(random_inputs({s}, lo, hi, seed)[0]);
}
}  // namespace

const std::vector<OpSpec>& op_specs() {
  static const std::vector<OpSpec> specs = {
      // arithmetic (broadcasting cases included)
      {"add", {{3, 4}, {4}}, -1, 1, [](Graph&, In x) { return V{ops::add(x[0], x[1])}; }},
      {"sub", {{3, 1}, {3, 4}}, -1, 1, [](Graph&, In x) { return V{ops::sub(x[0], x[1])}; }},
      {"mul", {{3, 4}, {3, 4}}, -1, 1, [](Graph&, In x) { return V{ops::mul(x[0], x[1])}; }},
      {"div", {{3, 4}, {1, 4}}, 0.5, 2, [](Graph&, In x) { return V{ops::div(x[0], x[1])}; }},
      {"neg", {{3, 4}}, -1, 1, [](Graph&, In x) { return V{ops::neg(x[0])}; }},
      {"scale", {{3, 4}}, -1, 1, [](Graph&, In x) { return V{ops::scale(x[0], -2.5)}; }},
      {"add_scalar", {{3, 4}}, -1, 1, [](Graph&, In x) { return V{ops::add_scalar(x[0], 0.7) * x[0]}; }},
      {"rsub_scalar", {{3, 4}}, -1, 1, [](Graph&, In x) { return V{ops::rsub_scalar(x[0], 0.7) * x[0]}; }},
      {"greater", {{3, 4}, {4}}, -1, 1, [](Graph&, In x) { return V{ops::greater(x[0], x[1]) * x[0]}; }},
      // sampling: zero derivative, so only x[0]'s own factor carries a gradient
      {"bernoulli", {{3, 4}}, -1, 1, [](Graph& g, In x) {
         return V{ops::bernoulli(ops::logistic(x[0]), data(g, {3, 4}, 0, 1, 17)) * x[0]};
       }},
      {"gaussian", {{3, 4}}, -1, 1, [](Graph& g, In x) {
         return V{ops::gaussian(x[0], data(g, {3, 4}, -1, 1, 18), 0.5) * 2.0 + x[0]};
       }, false},
      // elementwise
      {"exp", {{3, 4}}, -2, 2, [](Graph&, In x) { return V{ops::exp(x[0])}; }},
      {"log", {{3, 4}}, 0.5, 3, [](Graph&, In x) { return V{ops::log(x[0])}; }},
      {"tanh", {{3, 4}}, -2, 2, [](Graph&, In x) { return V{ops::tanh(x[0])}; }},
      {"logistic", {{3, 4}}, -3, 3, [](Graph&, In x) { return V{ops::logistic(x[0])}; }},
      {"relu", {{3, 4}}, 0.1, 1, [](Graph&, In x) { return V{ops::relu(x[0]) * ops::relu(ops::neg(x[0]) + 2.0)}; }},
      {"square", {{3, 4}}, -2, 2, [](Graph&, In x) { return V{ops::square(x[0])}; }},
      {"sqrt", {{3, 4}}, 0.5, 3, [](Graph&, In x) { return V{ops::sqrt(x[0])}; }},
      {"abs", {{3, 4}}, 0.2, 1, [](Graph&, In x) { return V{ops::abs(x[0]) * ops::abs(ops::neg(x[0]))}; }},
      {"pow", {{3, 4}}, 0.5, 2, [](Graph&, In x) { return V{ops::pow(x[0], 2.5)}; }},
      {"sign", {{3, 4}}, 0.2, 1, [](Graph&, In x) { return V{ops::sign(x[0]) * x[0]}; }},
      {"step", {{3, 4}}, 0.2, 1, [](Graph&, In x) { return V{ops::step(x[0] - 0.6) * ops::square(x[0])}; }},
      {"softplus", {{3, 4}}, -3, 3, [](Graph&, In x) { return V{ops::softplus(x[0])}; }},
      // beyond ±π/2 on purpose: both signs of the derivative and of the curvature
      {"sin", {{3, 4}}, -4, 4, [](Graph&, In x) { return V{ops::sin(x[0])}; }},
      {"cos", {{3, 4}}, -4, 4, [](Graph&, In x) { return V{ops::cos(x[0])}; }},
      // linear algebra
      {"matmul", {{3, 4}, {4, 2}}, -1, 1, [](Graph&, In x) { return V{ops::matmul(x[0], x[1])}; }},
      {"matmul_ta_tb", {{4, 3}, {2, 4}}, -1, 1, [](Graph&, In x) {
         return V{ops::matmul(x[0], x[1], true, true), ops::matmul(x[1], x[0], false, false)};
       }},
      {"addmm", {{3, 2}, {3, 4}, {4, 2}}, -1, 1, [](Graph&, In x) { return V{ops::addmm(x[0], x[1], x[2])}; }},
      {"addmm_ta_tb", {{3, 2}, {4, 3}, {2, 4}}, -1, 1, [](Graph&, In x) {
         return V{ops::addmm(x[0], x[1], x[2], true, true), ops::addmm(ops::transpose(x[0]), x[2], x[1])};
       }},
      // B's packed copy is a hint without a derivative (zeros in float64, which never packs): the
      // derivatives of addmm_packed are addmm's, through B
      {"addmm_packed", {{3, 2}, {3, 4}, {4, 2}}, -1, 1, [](Graph&, In x) {
         return V{ops::addmm_packed(x[0], x[1], x[2], ops::gemm_pack(x[2], 3, Site::current()), Site::current())};
       }},
      {"gemm_pack", {{4, 2}}, -1, 1, [](Graph&, In x) { return V{ops::sum(ops::gemm_pack(x[0], 3, Site::current()))}; },
       false},
      {"transpose", {{3, 4}}, -1, 1, [](Graph&, In x) { return V{ops::transpose(x[0])}; }},
      // reductions and broadcasting
      {"sum", {{3, 4}}, -1, 1, [](Graph&, In x) { return V{ops::sum(ops::square(x[0]))}; }},
      {"sum_axis", {{3, 4, 2}}, -1, 1, [](Graph&, In x) { return V{ops::sum(x[0], 1), ops::sum(x[0], 0, true)}; }},
      {"max", {{3, 5}}, -1, 1, [](Graph&, In x) { return V{ops::max(x[0], 1), ops::max(x[0], 0, true)}; }},
      {"argmax_mask", {{3, 5}}, -1, 1, [](Graph&, In x) { return V{ops::argmax_mask(x[0], 1) * x[0]}; }},
      {"broadcast_to", {{4, 1}}, -1, 1, [](Graph&, In x) { return V{ops::broadcast_to(x[0], {2, 4, 3})}; }},
      {"sum_to", {{2, 4, 3}}, -1, 1, [](Graph&, In x) { return V{ops::sum_to(x[0], {4, 1}), ops::sum_to(x[0], {3})}; }},
      // shape ops
      {"reshape", {{3, 4}}, -1, 1, [](Graph&, In x) { return V{ops::reshape(x[0], {2, 6}) * ops::reshape(x[0], {2, 6})}; }},
      {"slice", {{3, 5}}, -1, 1, [](Graph&, In x) { return V{ops::slice(x[0], 1, 1, 4), ops::slice(x[0], 0, 2, 3)}; }},
      {"pad", {{3, 2}}, -1, 1, [](Graph&, In x) { return V{ops::pad(x[0], 1, 1, {3, 5})}; }},
      {"concat", {{3, 2}, {3, 3}}, -1, 1, [](Graph&, In x) {
         Var parts[] = {x[0], x[1], x[0]};
         return V{ops::concat(parts, 1)};
       }},
      {"split", {{3, 6}}, -1, 1, [](Graph&, In x) {
         V p = ops::split(x[0], 1, 3);
         return V{p[0] * p[1], p[2]};
       }},
      {"gather_rows", {{4, 3}}, -1, 1, [](Graph&, In x) {
         return V{ops::gather_rows(x[0], ops::make_index({2, 0, 2, 3, 1}))};
       }},
      {"scatter_add_rows", {{5, 3}}, -1, 1, [](Graph&, In x) {
         return V{ops::scatter_add_rows(x[0], ops::make_index({2, 0, 2, 3, 1}), 4)};
       }},
      {"pick_columns", {{5, 4}}, -1, 1, [](Graph&, In x) {
         return V{ops::pick_columns(x[0], ops::make_index({2, 0, 3, 3, 1}))};
       }},
      {"put_columns", {{5}}, -1, 1, [](Graph&, In x) {
         return V{ops::put_columns(x[0], ops::make_index({2, 0, 3, 3, 1}), 4)};
       }},
      {"where", {{3, 4}, {3, 4}}, -1, 1, [](Graph& g, In x) {
         return V{ops::where(mask(g, {3, 4}), x[0], ops::square(x[1]))};
       }},
      {"stop_gradient", {{3, 4}}, -1, 1, [](Graph&, In x) { return V{ops::stop_gradient(x[0]) * 2.0}; }, false},
      {"fill", {{3, 4}}, -1, 1, [](Graph& g, In x) { return V{x[0] * ops::fill(g, {3, 4}, 1.5, DType::f64)}; }},
      {"one_hot", {{3, 4}}, -1, 1, [](Graph& g, In x) {
         return V{x[0] * ops::one_hot(g, ops::make_index({3, 0, 1}), 4, DType::f64)};
       }},
      // recurrences as one node (ops/scan.cc): 3 steps of a batch of 2, H = 3 (order 2 differentiates their
      // rules, which are scans again)
      {"linear_scan", {{6, 3}, {3, 3}, {6, 3}, {6, 3}, {2, 3}}, -1, 1, [](Graph&, In x) {
         return V{ops::linear_scan(x[0], x[1], x[2], x[3], x[4])};
       }},
      {"linear_scan_reverse", {{6, 3}, {3, 3}, {6, 3}, {6, 3}, {2, 3}}, -1, 1, [](Graph&, In x) {
         return V{ops::linear_scan(x[0], x[1], x[2], x[3], x[4], true)};
       }},
      {"tanh_scan", {{6, 3}, {3, 3}, {2, 3}}, -1, 1, [](Graph&, In x) { return V{ops::tanh_scan(x[0], x[1], x[2])}; }},
      {"tanh_scan_reverse", {{6, 3}, {3, 3}, {2, 3}}, -1, 1, [](Graph&, In x) {
         return V{ops::tanh_scan(x[0], x[1], x[2], true)};
       }},
      {"logistic_scan", {{6, 3}, {3, 3}, {2, 3}}, -1, 1, [](Graph&, In x) {
         return V{ops::logistic_scan(x[0], x[1], x[2])};
       }},
      {"logistic_scan_reverse", {{6, 3}, {3, 3}, {2, 3}}, -1, 1, [](Graph&, In x) {
         return V{ops::logistic_scan(x[0], x[1], x[2], true)};
       }},
      {"relu_scan", {{6, 3}, {3, 3}, {2, 3}}, -1, 1, [](Graph&, In x) { return V{ops::relu_scan(x[0], x[1], x[2])}; }},
      // W (and A) constants: rules whose W (A) has no tangent
      {"tanh_scan_constant_w", {{6, 3}, {2, 3}}, -1, 1, [](Graph& g, In x) {
         return V{ops::tanh_scan(x[0], data(g, {3, 3}, -1, 1, 19), x[1])};
       }},
      {"linear_scan_constant_w_a", {{6, 3}, {6, 3}, {2, 3}}, -1, 1, [](Graph& g, In x) {
         return V{ops::linear_scan(x[0], data(g, {3, 3}, -1, 1, 19), data(g, {6, 3}, -1, 1, 20), x[1], x[2])};
       }},
      {"relu_scan_reverse", {{6, 3}, {3, 3}, {2, 3}}, -1, 1, [](Graph&, In x) {
         return V{ops::relu_scan(x[0], x[1], x[2], true)};
       }},
      // fused cells (H = 5: one full SIMD batch of doubles and a tail)
      {"lstm_cell", {{3, 20}, {3, 5}}, -2, 2, [](Graph&, In x) { return V{ops::lstm_cell(x[0], x[1])}; }},
      {"lstm_cell_vjp", {{3, 20}, {3, 5}, {6, 5}}, -2, 2, [](Graph&, In x) {
         return V{ops::lstm_cell_vjp(x[0], x[1], x[2])};
       }},
      {"lstm_cell_jvp", {{18, 5}, {3, 20}, {3, 5}}, -2, 2, [](Graph&, In x) {
         return V{ops::lstm_cell_jvp(x[0], x[1], x[2])};
       }},
      {"lstm_cell_transpose", {{18, 5}, {6, 5}}, -2, 2, [](Graph&, In x) {
         return V{ops::lstm_cell_transpose(x[0], x[1])};
       }},
      {"gru_update", {{3, 5}, {3, 5}, {3, 5}}, -2, 2, [](Graph&, In x) { return V{ops::gru_update(x[0], x[1], x[2])}; }},
      {"gru_update_vjp", {{3, 5}, {3, 5}, {3, 5}, {3, 5}}, -2, 2, [](Graph&, In x) {
         return V{ops::gru_update_vjp(x[0], x[1], x[2], x[3])};
       }},
      {"logistic_vjp", {{3, 5}, {3, 5}}, -2, 2, [](Graph&, In x) { return V{ops::logistic_vjp(x[0], x[1])}; }},
      {"tanh_vjp", {{3, 5}, {3, 5}}, -2, 2, [](Graph&, In x) { return V{ops::tanh_vjp(x[0], x[1])}; }},
      {"logistic_vjp_aliased", {{3, 5}}, -2, 2, [](Graph&, In x) { return V{ops::logistic_vjp(x[0], x[0])}; }},
      {"tanh_vjp_aliased", {{3, 5}}, -2, 2, [](Graph&, In x) { return V{ops::tanh_vjp(x[0], x[0])}; }},
      // what a Hessian product meets: the cotangent itself a function of y
      {"logistic_vjp_of_y", {{3, 5}}, -2, 2, [](Graph&, In x) {
         const Var y = ops::logistic(x[0]);
         return V{ops::logistic_vjp(y, ops::square(y))};
       }},
      {"tanh_vjp_of_y", {{3, 5}}, -2, 2, [](Graph&, In x) {
         const Var y = ops::tanh(x[0]);
         return V{ops::tanh_vjp(y, ops::scale(y, 3.0))};
       }},
      // one node in two places (its derivative must be counted once per place, not twice)
      {"gru_update_aliased", {{3, 5}, {3, 5}}, -2, 2, [](Graph&, In x) { return V{ops::gru_update(x[0], x[0], x[1])}; }},
      {"gru_update_vjp_aliased", {{3, 5}, {3, 5}, {3, 5}}, -2, 2, [](Graph&, In x) {
         return V{ops::gru_update_vjp(x[0], x[1], x[0], x[2])};
       }},
      // composites
      {"mean", {{3, 4}}, -1, 1, [](Graph&, In x) { return V{ops::mean(ops::square(x[0]))}; }},
      {"mean_axis", {{3, 4}}, -1, 1, [](Graph&, In x) { return V{ops::mean(x[0], 0), ops::mean(x[0], 1, true)}; }},
      {"softmax", {{3, 5}}, -2, 2, [](Graph&, In x) { return V{ops::softmax(x[0], 1), ops::softmax(x[0], 0)}; }},
      {"log_softmax", {{3, 5}}, -2, 2, [](Graph&, In x) { return V{ops::log_softmax(x[0])}; }},
      {"logsumexp", {{3, 5}}, -2, 2, [](Graph&, In x) { return V{ops::logsumexp(x[0], 1), ops::logsumexp(x[0], 0, true)}; }},
      {"l2norm", {{3, 4}}, -1, 1, [](Graph&, In x) { return V{ops::l2norm(x[0])}; }},
      {"softmax_xent", {{4, 5}}, -2, 2, [](Graph& g, In x) {
         Var m = g.input(Tensor::from({4}, std::vector<double>{1, 0, 1, 1}, DType::f64));
         return V{losses::softmax_xent(x[0], ops::make_index({1, 4, 0, 2}), m),
                  losses::softmax_xent(x[0], ops::make_index({3, 3, 0, 1}), {}, false)};
       }},
      {"sigmoid_bce", {{3, 4}}, -3, 3, [](Graph& g, In x) {
         return V{losses::sigmoid_bce(x[0], data(g, {3, 4}, 0, 1, 7), mask(g, {3, 4}))};
       }},
      {"squared_error", {{3, 4}}, -2, 2, [](Graph& g, In x) {
         return V{losses::squared_error(x[0], data(g, {3, 4}, -1, 1, 8)),
                  losses::squared_error(x[0], data(g, {3, 4}, -1, 1, 9), g.input(Tensor::from({4}, std::vector<double>{1, 0, 2, 1}, DType::f64)))};
       }},
      // a weight of 64 x 64 that three products share: matmul's VJP transposes it once, from its second
      // product on (ops/linalg.cc, times_transpose_of), and the rules of that transpose are differentiated too
      {"matmul_shared_weight", {{2, 64}, {64, 64}}, -0.2, 0.2, [](Graph&, In x) {
         Var h1 = ops::tanh(ops::matmul(x[0], x[1]));
         Var h2 = ops::tanh(ops::addmm(x[0], h1, x[1]));
         return V{ops::matmul(h2, x[1])};
       }},
      // shared subexpressions: f(x) = g(x) + g(x) must count both uses
      {"shared_subexpression", {{3, 4}}, -1, 1, [](Graph&, In x) {
         Var t = ops::tanh(x[0]);
         return V{t * t + t};
       }},
  };
  return specs;
}

}  // namespace tg::check
