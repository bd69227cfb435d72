// Gradient-check rows for the sampling-free parts of the RBM (models/rbm.h): free energies (binary
// and Gaussian visibles, with and without a dynamic hidden bias), the conditionals, the exact
// log-likelihood by enumeration and the CD surrogate for a fixed negative sample, as functions of
// W, b, c (and v or h), in float64 at tiny sizes (V = 4, H = 3, N = 2). `tapegrad gradcheck --models`
// runs them beside the other model rows.
#pragma once
#include <string>
#include <vector>

#include "gradcheck/gradcheck.h"

namespace tg::check {

struct RbmSpec {
  std::string name;
  std::vector<Shape> shapes;  // input leaves
  Fn fn;
};

const std::vector<RbmSpec>& rbm_specs();
Report check_rbm(const RbmSpec& spec, const Options& opt = {});

// The temporal RBMs (models/temporal_rbm.h) as functions of their parameters on fixed frames (V = 4,
// H = 3, N = 2, T = 3): the CD surrogate with a fixed negative sample through the frames' dynamic biases,
// and the exact log-likelihood by enumeration. The TRBM's filtering estimate is a constant to its
// gradient (stop_gradient, rules 3.7-3.10), as is W' in the CD terms of the thesis's printed BPTT: those
// rows take no finite differences (they would see the stopped paths) and check the dot-product tests.
struct TemporalRbmSpec {
  std::string name;
  bool recurrent = true;
  int taps = 1;
  bool hh = true, vh = false, vv = false;
  bool thesis_bptt = false;
  bool exact = false;  // the exact log-likelihood (else the CD surrogate)
};
const std::vector<TemporalRbmSpec>& temporal_rbm_specs();
Report check_temporal_rbm(const TemporalRbmSpec& spec, const Options& opt = {});

}  // namespace tg::check
