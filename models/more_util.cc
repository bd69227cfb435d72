#include "models/more_util.h"

#include <random>

#include <fmt/format.h>

#include "core/error.h"
#include "core/options.h"

namespace tg::models::more {

json options(const std::string& model, const json& defaults, const json& cfg) {
  return merge_options(fmt::format("model '{}'", model), defaults, cfg);
}

IoSizes read_io(const OptionReader& o) {  // the same rules as CommonOptions::read (models/cell_model.h)
  IoSizes io;
  io.vocab = o.count("vocab");
  io.in = o.count("in");
  if ((io.vocab > 0) == (io.in > 0))
    o.fail("set exactly one of 'vocab' (symbolic inputs) and 'in' (dense inputs); use vocab=0 with in=N");
  io.out = o.count("out");
  if (io.out == 0) {
    if (!io.symbolic()) o.fail("option 'out' must be set (> 0) for dense inputs");
    io.out = io.vocab;  // next-symbol prediction
  }
  return io;
}

Var input_term(Graph& g, const Sequence& xs, int64_t t, Var W) {
  if (!xs.symbols.empty()) return ops::gather_rows(W, xs.symbols[t]);
  return ops::matmul(g.input(xs.dense[t].astype(W.dtype()).clone()), W);  // the graph keeps its own copy
}

Var step_mask(Graph& g, const Sequence& xs, int64_t t, DType dt) {
  if (xs.mask.empty()) return {};
  const Tensor& m = xs.mask[t];
  bool all_ones = true;
  for (int64_t b = 0; b < m.size(); ++b) all_ones = all_ones && m.at(b) != 0;
  if (all_ones) return {};
  return g.input(m.astype(dt).clone().reshaped({xs.B, 1}));
}

Var carry(Var mask, Var fresh, Var old) {
  if (mask.empty()) return fresh;
  return ops::where(ops::broadcast_to(mask, fresh.shape()), fresh, old);
}

Var initial_state(Graph& g, Var h0, int64_t B, int64_t n, DType dt) {
  if (h0.empty()) return ops::fill(g, {B, n}, 0.0, dt);
  return ops::broadcast_to(h0, {B, n});
}

Tensor tensor(const Shape& s, const std::vector<double>& v, DType dt) { return Tensor::from(s, v, dt); }

std::vector<double> normal_values(int64_t n, double stddev, Rng& rng) {
  std::normal_distribution<double> d(0.0, stddev);
  std::vector<double> v(n);
  for (double& x : v) x = stddev > 0 ? d(rng) : 0.0;
  return v;
}

}  // namespace tg::models::more
