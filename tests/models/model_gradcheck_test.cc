// Every model through the engine's gradient-check harness in float64 (finite differences, the
// dot-product test, second order, linearize reuse), one ctest entry per spec row, and the coverage
// test: every registered model has a spec row.
#include <gtest/gtest.h>

#include <set>

#include "gradcheck/model_specs.h"
#include "tests/harness/model_rows.h"

namespace tg::check {
namespace {

class ModelGradcheck : public ::testing::TestWithParam<ModelSpec> {};

TEST_P(ModelGradcheck, LossOfAllParameters) {
  Report r = check_model(GetParam());
  EXPECT_TRUE(r.ok) << GetParam().name << ": " << r.failure << " (fd " << r.fd1 << " dot " << r.dot1 << " fd2 "
                    << r.fd2 << " dot2 " << r.dot2 << " lin " << r.lin << ")";
  EXPECT_EQ(r.primal_reevals, 0u);
}

INSTANTIATE_TEST_SUITE_P(Zoo, ModelGradcheck, ::testing::ValuesIn(model_specs()), row_name);

TEST(ModelSpecs, EveryRegisteredModelHasARow) {
  std::set<std::string> covered;
  for (const ModelSpec& s : model_specs()) covered.insert(s.model);
  for (const models::ModelInfo& m : models::registry())
    EXPECT_TRUE(covered.count(m.name)) << "model '" << m.name << "' has no row in gradcheck/model_specs.cc";
}

TEST(ModelSpecs, RowsNameRegisteredModelsAndUniqueLabels) {
  std::set<std::string> labels;
  for (const ModelSpec& s : model_specs()) {
    EXPECT_NO_THROW(models::find(s.model)) << s.name;
    EXPECT_TRUE(labels.insert(s.name).second) << "duplicate row label " << s.name;
  }
}

}  // namespace
}  // namespace tg::check
