// Test helpers for the parameterised tests over the zoo's gradient-check rows (gradcheck/model_specs.h).
#pragma once
#include <algorithm>
#include <cctype>
#include <cmath>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "core/params.h"
#include "gradcheck/model_specs.h"

namespace tg::check {

// A row's name as a gtest parameter name: every character but letters and digits becomes '_'.
inline std::string row_name(const ::testing::TestParamInfo<ModelSpec>& info) {
  std::string s = info.param.name;
  for (char& c : s)
    if (!isalnum(static_cast<unsigned char>(c))) c = '_';
  return s;
}

// ‖a - b‖ relative to ‖b‖ (absolute when b is tiny); a length mismatch is a test failure.
inline double rel_err(const std::vector<double>& a, const std::vector<double>& b) {
  EXPECT_EQ(a.size(), b.size());
  double d = 0, n = 0;
  for (size_t i = 0; i < a.size() && i < b.size(); ++i) {
    d += (a[i] - b[i]) * (a[i] - b[i]);
    n += b[i] * b[i];
  }
  return std::sqrt(d) / std::max(std::sqrt(n), 1e-8);
}
inline double rel_err(const ParamVec& a, const ParamVec& b) { return rel_err(a.flat().to_vector(), b.flat().to_vector()); }

}  // namespace tg::check
