// Errors name the op, the shapes and the user's file:line; check_finite names the first bad node.
#include <gtest/gtest.h>

#include <limits>
#include <string>

#include "core/error.h"
#include "core/graph.h"
#include "core/linearize.h"
#include "core/params.h"
#include "ops/ops.h"
#include "tests/harness/error_of.h"

namespace tg {
namespace {

using check::error_of;

TEST(Errors, ShapeMismatchNamesOpShapesAndCallerLine) {
  Graph g;
  Var a = g.input(Tensor::zeros({32, 128}, DType::f32));
  Var b = g.input(Tensor::zeros({64, 86}, DType::f32));
  int line = 0;
  std::string msg = error_of([&] {
    ScopeGuard s(g, "mrnn/t", 3);
    line = __LINE__ + 1;
    ops::matmul(a, b);
  });
  EXPECT_NE(msg.find("matmul"), std::string::npos) << msg;
  EXPECT_NE(msg.find("[32,128]"), std::string::npos) << msg;
  EXPECT_NE(msg.find("[64,86]"), std::string::npos) << msg;
  EXPECT_NE(msg.find("errors_test.cc:" + std::to_string(line)), std::string::npos) << msg;
  EXPECT_NE(msg.find("mrnn/t=3"), std::string::npos) << msg;
}

TEST(Errors, OperatorsReportTheCallerToo) {
  Graph g;
  Var a = g.input(Tensor::zeros({3, 4}, DType::f64));
  Var b = g.input(Tensor::zeros({5}, DType::f64));
  int line = __LINE__ + 1;
  std::string msg = error_of([&] { (void)(a + b); });
  EXPECT_NE(msg.find("add: cannot broadcast: [3,4] x [5]"), std::string::npos) << msg;
  EXPECT_NE(msg.find("errors_test.cc:" + std::to_string(line)), std::string::npos) << msg;
}

TEST(Errors, BadArgumentsOfShapeOps) {
  Graph g;
  Var x = g.input(Tensor::zeros({3, 4}, DType::f64));
  EXPECT_NE(error_of([&] { ops::slice(x, 1, 2, 9); }).find("slice: bounds [2, 9)"), std::string::npos);
  EXPECT_NE(error_of([&] { ops::reshape(x, {5, 2}); }).find("reshape: cannot reshape to [5,2]"), std::string::npos);
  EXPECT_NE(error_of([&] { ops::gather_rows(x, ops::make_index({0, 3})); }).find("index 3 out of range"),
            std::string::npos);
  EXPECT_NE(error_of([&] { ops::sum(x, 2); }).find("axis 2 out of range"), std::string::npos);
}

TEST(Errors, ShapeSizeOverflowIsAnError) {
  // 2^32 x 2^32 wrapped to 0 elements before the check.
  const Shape s{int64_t{1} << 32, int64_t{1} << 32};
  EXPECT_EQ(error_of([&] { (void)s.size(); }), "shape [4294967296,4294967296]: more than 9223372036854775807 elements");
  EXPECT_EQ((Shape{int64_t{1} << 31, int64_t{1} << 31}.size()), int64_t{1} << 62);
  EXPECT_EQ((Shape{0, int64_t{1} << 62, 4}.size()), 0);
}

TEST(Errors, ParametersLargerThanTheMachineAreRefusedBeforeAllocation) {
  // 2^20 x 2^20 floats are 4 TB: refused by name and shape, and the set is left as it was.
  ParamSet ps;
  ps.add("small", Shape{3, 4});
  const std::string msg = error_of([&] { ps.add("rnn/W_hh", Shape{int64_t{1} << 20, int64_t{1} << 20}); });
  EXPECT_NE(msg.find("'rnn/W_hh' of shape [1048576,1048576]"), std::string::npos) << msg;
  EXPECT_NE(msg.find("more than a quarter of this machine's"), std::string::npos) << msg;
  EXPECT_EQ(ps.count(), 1);
  EXPECT_EQ(ps.numel(), 12);
  // a size whose sum with the 12 before passes int64 is refused too, not wrapped to a negative count
  EXPECT_NE(error_of([&] { ps.add("b", Shape{std::numeric_limits<int64_t>::max()}); }).find("more values than int64"),
            std::string::npos);
  EXPECT_EQ(ps.numel(), 12);
}

TEST(Errors, CheckFiniteNamesTheFirstNonFiniteNode) {
  Graph g(GraphOptions{.check_finite = true});
  Var x = g.input(Tensor::from({2}, std::vector<double>{1.0, -1.0}, DType::f64));
  std::string msg;
  int line = 0;
  {
    ScopeGuard s(g, "head");
    line = __LINE__ + 1;
    msg = error_of([&] { ops::log(x); });
  }
  EXPECT_NE(msg.find("check_finite"), std::string::npos) << msg;
  EXPECT_NE(msg.find("= log"), std::string::npos) << msg;
  EXPECT_NE(msg.find("head"), std::string::npos) << msg;
  EXPECT_NE(msg.find("errors_test.cc:" + std::to_string(line)), std::string::npos) << msg;
}

TEST(Errors, WithoutCheckFiniteNaNsFlowSilently) {
  Graph g;
  Var x = g.input(Tensor::from({1}, std::vector<double>{-1.0}, DType::f64));
  EXPECT_TRUE(std::isnan(ops::log(x).value().at(0)));
}

}  // namespace
}  // namespace tg

namespace tg {
namespace {

// A vector of another model's parameters: every place that takes one names both layouts.
TEST(Errors, MismatchedParameterVectorsNameBothLayouts) {
  ParamSet ps(DType::f64), other(DType::f64);
  Rng rng(1);
  ParamId w = ps.add("w", {3, 2}, init::normal(0.5), &rng);
  ps.add("b", {2}, init::zeros());
  other.add("v", {4, 2}, init::zeros());
  Graph g;
  g.bind(ps);
  Var x = g.input(Tensor::full({4, 3}, 0.5, DType::f64));
  Var loss = ops::sum(ops::square(ops::matmul(x, g[w])));
  ad::Linearization lin(loss);
  const ParamVec foreign = other.values();
  for (const std::string& msg : {error_of([&] { lin.gnvp(foreign, ad::Block{.at = {loss}, .head = loss}); }),
                                 error_of([&] { lin.hvp(foreign); }), error_of([&] { ps.set_values(foreign); }),
                                 error_of([&] { ps.values().dot(foreign); })}) {
    EXPECT_NE(msg.find("expected 2 parameters, 8 values: w [3,2], b [2]"), std::string::npos) << msg;
    EXPECT_NE(msg.find("got 1 parameter, 8 values: v [4,2]"), std::string::npos) << msg;
  }
}

}  // namespace
}  // namespace tg
