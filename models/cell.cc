#include "models/cell.h"

#include <fmt/format.h>

#include "core/error.h"

namespace tg::models {

StepInput step_input(Graph& g, const Sequence& xs, int64_t t, DType dt) {
  auto keep = [&](Shape shape) {
    return g.input(xs.input_keep[static_cast<size_t>(t)].astype(dt).clone().reshaped(shape));
  };
  StepInput x;
  if (!xs.symbols.empty()) {
    x.symbols = xs.symbols[t];
    if (!xs.input_keep.empty()) x.symbol_keep = keep({xs.B, 1});
  } else {
    x.dense = g.input(xs.dense[t].astype(dt).clone());  // the graph keeps its own copy
    if (!xs.input_keep.empty()) x.dense = ops::mul(x.dense, keep(x.dense.shape()));
  }
  return x;
}

Var project(Graph& g, const StepInput& x, ParamId w, Site site) { return project(x, g[w], site); }

std::vector<StepInput> step_inputs(Graph& g, const Sequence& xs, int64_t begin, int64_t end, DType dt) {
  std::vector<StepInput> x;
  x.reserve(static_cast<size_t>(end - begin));
  if (!xs.symbols.empty()) {
    for (int64_t t = begin; t < end; ++t) x.push_back(step_input(g, xs, t, dt));
    return x;
  }
  std::vector<Var> dense;
  dense.reserve(x.capacity());
  for (int64_t t = begin; t < end; ++t) dense.push_back(step_input(g, xs, t, dt).dense);
  return stacked_step_inputs(dense, begin);
}

std::vector<StepInput> stacked_step_inputs(std::span<const Var> dense, int64_t first) {
  if (dense.empty()) return {};
  auto s = std::make_shared<StackedRows>();
  s->rows = dense.size() == 1 ? dense[0] : ops::concat(dense, 0);
  s->batch = dense[0].shape()[0];
  s->first = first;
  std::vector<StepInput> x(dense.size());
  for (size_t i = 0; i < dense.size(); ++i) {
    const int64_t r = static_cast<int64_t>(i) * s->batch;
    x[i].dense = dense.size() == 1 ? s->rows : ops::slice(s->rows, 0, r, r + s->batch);
    x[i].stacked = s;
    x[i].t = first + static_cast<int64_t>(i);
  }
  return x;
}

Var project(const StepInput& x, Var w, Site site) {
  if (x.symbols) {
    Var rows = ops::gather_rows(w, x.symbols, site);
    // dropping a one-hot input unit drops its whole row: the mask is one factor per sequence
    return x.symbol_keep.empty() ? rows : ops::mul(rows, x.symbol_keep, site);
  }
  // Only a leaf (a parameter) is known to be the same weight at every step; a derived one could be
  // rebuilt per step, and a product with all the rows per step would cost T times the work.
  const bool leaf = w.graph()->node(w.id()).in.empty();
  if (!x.stacked || !leaf) return ops::matmul(x.dense, w, false, false, site);
  StackedRows& s = *x.stacked;
  auto it = s.products.find(w.id());
  if (it == s.products.end()) it = s.products.emplace(w.id(), ops::matmul(s.rows, w, false, false, site)).first;
  const int64_t r = (x.t - s.first) * s.batch;
  return ops::slice(it->second, 0, r, r + s.batch, site);
}

Var initial_part(Graph& g, Var learned, int64_t batch, int64_t n, DType dt) {
  if (learned.empty()) return ops::fill(g, {batch, n}, 0.0, dt);
  return ops::broadcast_to(learned, {batch, n});
}

InitialState::InitialState(ParamBuilder& p, const std::vector<std::pair<std::string, int64_t>>& parts,
                           bool learned)
    : dtype_(p.dtype()) {
  for (const auto& [name, size] : parts) {
    sizes_.push_back(size);
    if (learned) learned_.push_back(p.add(name, {size}, init::zeros()));
  }
}

State InitialState::make(Graph& g, int64_t batch) const {
  State s;
  for (size_t i = 0; i < sizes_.size(); ++i)
    s.push_back(initial_part(g, learned_.empty() ? Var() : g[learned_[i]], batch, sizes_[i], dtype_));
  return s;
}

State carry_over(Graph& g, const State& fresh, const State& old, const Tensor& mask) {
  TG_ASSERT(fresh.size() == old.size(), "state sizes {} vs {}", fresh.size(), old.size());
  const DType dt = fresh.at(0).dtype();
  const Tensor m = mask.astype(dt).clone().reshaped({mask.size(), 1});  // the graph keeps its own copy
  bool all_ones = true;
  for (int64_t i = 0; i < m.size(); ++i) all_ones = all_ones && m.at(i) == 1.0;
  if (all_ones) return fresh;  // nothing is padded at this step: no nodes
  Tensor one_minus = Tensor::empty(m.shape(), dt);
  TG_DISPATCH(dt, T, {
    for (int64_t i = 0; i < m.size(); ++i) one_minus.data<T>()[i] = T(1) - m.data<T>()[i];
  });
  Var keep_new = g.input(m), keep_old = g.input(one_minus);
  State s;
  for (size_t i = 0; i < fresh.size(); ++i) s.push_back(fresh[i] * keep_new + old[i] * keep_old);
  return s;
}

Var carry_over(Graph& g, Var fresh, Var old, const Sequence& xs, int64_t t) {
  if (xs.mask.empty()) return fresh;
  return carry_over(g, State{fresh}, State{old}, xs.mask[static_cast<size_t>(t)])[0];
}

}  // namespace tg::models
