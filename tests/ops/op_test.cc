// Every registered primitive and composite through the gradient-check harness, plus coverage.
#include <gtest/gtest.h>

#include <set>

#include "ops/registry.h"
#include "gradcheck/op_specs.h"

namespace tg::check {
namespace {

class OpGradcheck : public ::testing::TestWithParam<OpSpec> {};

TEST_P(OpGradcheck, FirstAndSecondOrderAndLinearize) {
  const OpSpec& s = GetParam();
  Options opt;
  opt.finite_differences = s.finite_differences;
  Report r = check_fn(s.fn, random_inputs(s.shapes, s.lo, s.hi, 42), opt);
  EXPECT_TRUE(r.ok) << s.op << ": " << r.failure;
  EXPECT_EQ(r.primal_reevals, 0u);
}

INSTANTIATE_TEST_SUITE_P(AllOps, OpGradcheck, ::testing::ValuesIn(op_specs()),
                         [](const auto& info) { return info.param.op; });

TEST(OpCoverage, EveryRegisteredOpHasASpecRow) {
  std::set<std::string> have;
  for (const OpSpec& s : op_specs()) have.insert(s.op);
  for (const Primitive* p : ops::primitives()) EXPECT_TRUE(have.count(p->name)) << "no spec row for primitive " << p->name;
  for (const std::string& c : ops::composites()) EXPECT_TRUE(have.count(c)) << "no spec row for composite " << c;
}

}  // namespace
}  // namespace tg::check
