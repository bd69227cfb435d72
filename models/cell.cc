#include "models/cell.h"

#include <fmt/format.h>

#include "core/error.h"

namespace tg::models {

Var project(Graph& g, const StepInput& x, ParamId w, Site site) {
  if (x.symbols) {
    Var rows = ops::gather_rows(g[w], x.symbols, site);
    // dropping a one-hot input unit drops its whole row: the mask is one factor per sequence
    return x.symbol_keep.empty() ? rows : ops::mul(rows, x.symbol_keep, site);
  }
  return ops::matmul(x.dense, g[w], false, false, site);
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
  for (size_t i = 0; i < sizes_.size(); ++i) {
    if (learned_.empty())
      s.push_back(ops::fill(g, {batch, sizes_[i]}, 0.0, dtype_));
    else
      s.push_back(ops::broadcast_to(g[learned_[i]], {batch, sizes_[i]}));
  }
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

}  // namespace tg::models
