#include "models/cell.h"

#include <cstring>

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

std::vector<StepInput> step_inputs(Graph& g, const Sequence& xs, int64_t begin, int64_t end, DType dt) {
  std::vector<StepInput> x;
  x.reserve(static_cast<size_t>(end - begin));
  if (!xs.symbols.empty()) {
    for (int64_t t = begin; t < end; ++t) x.push_back(step_input(g, xs, t, dt));
    if (!xs.input_keep.empty() || x.empty()) return x;  // input dropout's factors stay per step
    auto s = std::make_shared<StackedRows>();
    std::vector<int32_t> ids;
    for (const StepInput& in : x) ids.insert(ids.end(), in.symbols->begin(), in.symbols->end());
    s->symbols = ops::make_index(std::move(ids));
    s->batch = xs.B;
    s->first = begin;
    for (size_t i = 0; i < x.size(); ++i) {
      x[i].stacked = s;
      x[i].t = begin + static_cast<int64_t>(i);
      s->step_symbols.push_back(x[i].symbols);
    }
    return x;
  }
  if (begin >= end) return x;
  // Steps [begin, end) of per-step tensors [B, in] (inputs or input-dropout factors) as one leaf
  // [n·B, in] in dtype dt: one copy of the batch's data, not a leaf per step and then a concat.
  auto stacked_leaf = [&](const std::vector<Tensor>& per_step) {
    const int64_t rows = xs.B, cols = xs.dense[static_cast<size_t>(begin)].size() / xs.B;
    Tensor all = Tensor::empty({(end - begin) * rows, cols}, dt);
    const size_t bytes = static_cast<size_t>(rows * cols) * dtype_size(dt);
    for (int64_t t = begin; t < end; ++t)
      std::memcpy(static_cast<char*>(all.raw()) + static_cast<size_t>(t - begin) * bytes,
                  per_step[static_cast<size_t>(t)].astype(dt).raw(), bytes);
    return g.input(std::move(all));
  };
  Var rows = stacked_leaf(xs.dense);
  if (!xs.input_keep.empty()) rows = ops::mul(rows, stacked_leaf(xs.input_keep));
  return stacked_rows_inputs(rows, xs.B, begin);
}

std::vector<StepInput> stacked_rows_inputs(Var rows, int64_t batch, int64_t first) {
  auto s = std::make_shared<StackedRows>();
  s->rows = rows;
  s->batch = batch;
  s->first = first;
  const int64_t n = rows.shape()[0] / batch;
  std::vector<StepInput> x(static_cast<size_t>(n));
  for (int64_t i = 0; i < n; ++i) {
    StepInput& in = x[static_cast<size_t>(i)];
    in.dense = n == 1 ? rows : ops::slice(rows, 0, i * batch, (i + 1) * batch);
    s->step_dense.push_back(in.dense.id());
    in.stacked = s;
    in.t = first + i;
  }
  return x;
}

std::vector<StepInput> stacked_step_inputs(std::span<const Var> dense, int64_t first) {
  if (dense.empty()) return {};
  return stacked_rows_inputs(dense.size() == 1 ? dense[0] : ops::concat(dense, 0), dense[0].shape()[0], first);
}

namespace {
// One step's x W (+ b), as a lookup or product of this step's input alone.
Var project_step(const StepInput& x, Var w, Var b, Site site) {
  Var y;
  if (x.symbols) {
    y = ops::gather_rows(w, x.symbols, site);
    // dropping a one-hot input unit drops its whole row: the mask is one factor per sequence
    if (!x.symbol_keep.empty()) y = ops::mul(y, x.symbol_keep, site);
  } else {
    y = ops::matmul(x.dense, w, false, false, site);
  }
  return b.empty() ? y : ops::add(y, b, site);
}

bool is_leaf(Var v) { return v.empty() || v.graph()->node(v.id()).in.empty(); }

// Elementwise work (a row lookup, a bias add) done once for all steps only up to this many results: it
// saves nodes, which is what small graphs pay for, but beyond the cache a [T·B, n] pass costs more than
// T passes over [B, n] that the step consumes at once (an LSTM with H = 256, B = 32, T = 100 ran 3%
// slower with its lookups and biases stacked). GEMMs are stacked at any size.
constexpr int64_t kStackedElementwiseLimit = 1 << 16;

// How many rows s stacked: all its steps' lookups or dense rows.
int64_t stacked_row_count(const StackedRows& s) {
  return s.symbols ? static_cast<int64_t>(s.symbols->size()) : s.rows.shape()[0];
}

// Whether x, step i of s, still holds what s stacked for it (a StepInput replaced since is projected alone).
bool holds_stacked(const StackedRows& s, const StepInput& x, size_t i) {
  return s.symbols ? i < s.step_symbols.size() && x.symbols == s.step_symbols[i]
                   : i < s.step_dense.size() && !x.dense.empty() && x.dense.id() == s.step_dense[i];
}

Var project_affine(const StepInput& x, Var w, Var b, Site site) {
  // Only leaves (parameters) are known to be the same at every step; a derived weight could be rebuilt
  // per step, and a product with all the steps' inputs per step would cost T times the work.
  if (!x.stacked || !is_leaf(w) || !is_leaf(b)) return project_step(x, w, b, site);
  StackedRows& s = *x.stacked;
  if (!holds_stacked(s, x, static_cast<size_t>(x.t - s.first))) return project_step(x, w, b, site);
  const int64_t results = stacked_row_count(s) * w.shape()[1];
  const bool small = results <= kStackedElementwiseLimit;
  if (s.symbols && !small) {
    // A one-hot row selects one row of W, so x W + b = x (W + b): the bias is added once to W's [V, n]
    // rows instead of to every step's [B, n] lookup (an LSTM with H = 256: 100 adds of [32, 1024], and
    // in the gradient 100 sums over the batch, become one of each). Each value is the same sum w + b.
    // Only while W has fewer rows than the steps' lookups together (a large vocabulary would cost more).
    const bool fold = !b.empty() && x.symbol_keep.empty() && w.shape()[0] < static_cast<int64_t>(s.symbols->size());
    if (!fold) return project_step(x, w, b, site);
    const std::pair<int32_t, int32_t> folded_key{w.id(), -2 - b.id()};
    auto it = s.products.find(folded_key);
    if (it == s.products.end()) it = s.products.emplace(folded_key, ops::add(w, b, site)).first;
    return ops::gather_rows(it->second, x.symbols, site);
  }
  const Var bias_once = small ? b : Var();
  const std::pair<int32_t, int32_t> key{w.id(), bias_once.empty() ? -1 : bias_once.id()};
  auto it = s.products.find(key);
  if (it == s.products.end()) {
    Var all = s.symbols ? ops::gather_rows(w, s.symbols, site) : ops::matmul(s.rows, w, false, false, site);
    if (!bias_once.empty()) all = ops::add(all, bias_once, site);
    it = s.products.emplace(key, all).first;
  }
  const int64_t r = (x.t - s.first) * s.batch;
  Var y = it->second.shape()[0] == s.batch ? it->second : ops::slice(it->second, 0, r, r + s.batch, site);
  return b.empty() || !bias_once.empty() ? y : ops::add(y, b, site);
}
}  // namespace

Var project(Graph& g, const StepInput& x, ParamId w, Site site) { return project_affine(x, g[w], Var(), site); }
Var project(const StepInput& x, Var w, Site site) { return project_affine(x, w, Var(), site); }
Var project(Graph& g, const StepInput& x, ParamId w, ParamId b, Site site) {
  return project_affine(x, g[w], b.index >= 0 ? g[b] : Var(), site);
}
Var project(const StepInput& x, Var w, Var b, Site site) { return project_affine(x, w, b, site); }

Var project_all(Graph& g, std::span<const StepInput> x, ParamId w, ParamId b, Site site) {
  if (x.empty() || !x[0].stacked) return {};
  const StackedRows& s = *x[0].stacked;
  for (size_t i = 0; i < x.size(); ++i) {
    const StepInput& in = x[i];
    if (in.stacked.get() != &s || in.t != s.first + static_cast<int64_t>(i) || !in.symbol_keep.empty() ||
        !holds_stacked(s, in, i))
      return {};
  }
  const int64_t rows = static_cast<int64_t>(x.size()) * s.batch;
  if (stacked_row_count(s) != rows) return {};
  if (s.symbols) {  // with a bias, x (W + b) when W has fewer rows than the lookups (as project_affine)
    const bool fold = b.index >= 0 && g[w].shape()[0] < rows;
    const Var all = ops::gather_rows(fold ? ops::add(g[w], g[b], site) : g[w], s.symbols, site);
    return b.index >= 0 && !fold ? ops::add(all, g[b], site) : all;
  }
  const Var all = ops::matmul(s.rows, g[w], false, false, site);
  return b.index >= 0 ? ops::add(all, g[b], site) : all;
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
