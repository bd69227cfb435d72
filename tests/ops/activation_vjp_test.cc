// The fused derivatives of logistic and tanh (ops/activation_vjp.cc) against the ordinary ops they
// replace, bit for bit, and where the reverse sweep uses them: a one-off gradient takes the fused op, a
// linearization's segment the factor it evaluates once. (Their gradient checks at order 2 are rows of
// gradcheck/op_specs.cc.)
#include <gtest/gtest.h>

#include <string>

#include "core/ad.h"
#include "core/linearize.h"
#include "ops/ops.h"
#include "tests/harness/fused_cases.h"

namespace tg {
namespace {

using check::random_tensor;

int count_nodes(const Graph& g, const std::string& prim) {
  int n = 0;
  for (int32_t id = 0; id < g.size(); ++id) n += g.node(id).prim->name == prim;
  return n;
}

struct Activation {
  const char* name;
  Var (*forward)(Var, Site);
  Var (*fused)(Var, Var, Site);
  Var (*ordinary)(Var y, Var y_bar);  // the reverse sweep's ordinary ops: d(y) y_bar
};
const Activation kActivations[] = {
    {"logistic_vjp", ops::logistic, ops::logistic_vjp, [](Var y, Var yb) { return ops::mul(ops::mul(y, 1.0 - y), yb); }},
    {"tanh_vjp", ops::tanh, ops::tanh_vjp, [](Var y, Var yb) { return ops::mul(1.0 - ops::square(y), yb); }},
};

TEST(ActivationVjp, EqualsTheOrdinaryOpsBitForBit) {
  for (const Activation& act : kActivations)
    for (DType dt : {DType::f32, DType::f64}) {
      Graph g;
      const Shape s{7, 37};
      const Var y = act.forward(g.input(random_tensor(s, -4, 4, 1, dt)), Site::current());
      const Var y_bar = g.input(random_tensor(s, -1, 1, 2, dt));
      EXPECT_EQ(act.fused(y, y_bar, Site::current()).value().to_vector(), act.ordinary(y, y_bar).value().to_vector())
          << act.name << " " << dtype_name(dt);
    }
}

TEST(ActivationVjp, OneOffGradientsUseTheFusedOpLinearizationSegmentsTheFactor) {
  for (const Activation& act : kActivations) {
    ParamSet ps(DType::f64);
    Rng rng(3);
    const ParamId w = ps.add("w", {4, 3}, init::normal(1.0), &rng);
    Graph g;
    g.bind(ps);
    const Var x = g.input(random_tensor({5, 4}, -1, 1, 4, DType::f64));
    const Var h = act.forward(ops::matmul(x, g[w]), Site::current());
    const Var loss = ops::sum(ops::square(h));
    ad::Linearization lin(loss);
    lin.grad();
    EXPECT_EQ(count_nodes(g, act.name), 1) << "the gradient's sweep: one fused node";
    Graph ref;  // the same gradient through the ordinary ops
    ref.bind(ps);
    const Var xr = ref.input(random_tensor({5, 4}, -1, 1, 4, DType::f64));
    const Var zr = ops::matmul(xr, ref[w]);
    const Var hr = act.forward(zr, Site::current());
    const Var seed = ops::scale(hr, 2.0);  // d sum(h²) / dh
    const Var gr = ops::matmul(xr, act.ordinary(hr, seed), true, false);
    EXPECT_EQ(lin.grad()[0].to_vector(), gr.value().to_vector()) << act.name;
    // a segment's products: the cotangent is a placeholder, so no further fused node is built
    const ParamVec v = ps.values().clone().fill(0.5);
    lin.gnvp(v, ad::Block{{h}, loss});
    lin.hvp(v);
    EXPECT_EQ(count_nodes(g, act.name), 1) << act.name << ": segments multiply by the cached factor";
  }
}

}  // namespace
}  // namespace tg
