// One gradient-check spec row per registered primitive and composite. The coverage test fails when
// a registered op has no row here.
#pragma once
#include <string>
#include <vector>

#include "gradcheck/gradcheck.h"

namespace tg::check {

struct OpSpec {
  std::string op;              // registry name
  std::vector<Shape> shapes;   // input shapes (non-square on purpose)
  double lo = -1, hi = 1;      // input domain, away from kinks and poles
  Fn fn;
  bool finite_differences = true;
};

const std::vector<OpSpec>& op_specs();

}  // namespace tg::check
