#include "core/graph.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string_view>
#include <type_traits>

#include "core/error.h"
#include "core/params.h"

namespace tg {

namespace {
Shape leaf_shape(std::span<const Shape>, const Attrs& a) { return a.shape; }
Tensor no_eval(const EvalArgs&) { throw InternalError("leaf evaluated"); }

// Leaves hold values set from outside; they have no rules (nothing flows past a leaf).
const Primitive input_p{"input", 0, leaf_shape, no_eval, nullptr, nullptr, false};
const Primitive param_p{"param", 0, leaf_shape, no_eval, nullptr, nullptr, false};
const Primitive placeholder_p{"placeholder", 0, leaf_shape, no_eval, nullptr, nullptr, false};
}  // namespace

Shape Var::shape() const { return g_->node(id_).shape; }
DType Var::dtype() const { return g_->node(id_).dtype; }
const Tensor& Var::value() const { return g_->value(id_); }

Graph::Graph(GraphOptions opt) : opt_(opt) {}

namespace {
// Order-sensitive 64-bit mix of a buffer's words (with its tail bytes): cheap enough for builds with
// asserts, where it tells whether a shared θ was written while a graph read it.
uint64_t fingerprint(const Tensor& t) {
  const auto* bytes = static_cast<const unsigned char*>(t.raw());
  const std::size_t n = static_cast<std::size_t>(t.size()) * dtype_size(t.dtype());
  uint64_t h = 0x9e3779b97f4a7c15ull;
  std::size_t i = 0;
  for (; i + 8 <= n; i += 8) {
    uint64_t w;
    std::memcpy(&w, bytes + i, 8);
    h = (h ^ w) * 0x100000001b3ull;
    h ^= h >> 29;
  }
  for (; i < n; ++i) h = (h ^ bytes[i]) * 0x100000001b3ull;
  return h;
}
}  // namespace

namespace {
bool overlap(const Tensor& x, const Tensor& y) {
  const auto lo_x = reinterpret_cast<std::uintptr_t>(x.raw()), lo_y = reinterpret_cast<std::uintptr_t>(y.raw());
  const auto n_x = static_cast<std::uintptr_t>(x.size()) * dtype_size(x.dtype());
  const auto n_y = static_cast<std::uintptr_t>(y.size()) * dtype_size(y.dtype());
  return n_x > 0 && n_y > 0 && lo_x < lo_y + n_y && lo_y < lo_x + n_x;
}
}  // namespace

Graph::~Graph() {
#ifndef NDEBUG
  if (shared_fingerprint_ && fingerprint(param_values_) != *shared_fingerprint_) {
    std::fprintf(stderr, "graph: the θ given to bind_shared was written in place while the graph read it\n");
    std::abort();
  }
#endif
}

Var Graph::push(Node n, Tensor value) {
  any_dynamic_ |= n.dynamic;
  nodes_.push_back(std::move(n));
  values_.push_back(std::move(value));
  evals_.push_back(0);
  return Var(this, size() - 1);
}

Var Graph::input(Tensor value, Site site) {
  if (!value.defined()) throw Error(fmt::format("input: undefined tensor at {}", site.str()));
  if (opt_.check_finite && !value.all_finite())
    throw NonFiniteError(fmt::format("check_finite: input at {} contains NaN/Inf", site.str()));
  if (reusing_) {
    if (const int32_t id = reuse_leaf(input_p, value.shape(), value.dtype()); id >= 0) {
      nodes_[id].site = site;
      values_[id] = std::move(value);
      return Var(this, id);
    }
  }
  Attrs a;
  a.shape = value.shape();
  Node n{&input_p, {}, a, value.shape(), value.dtype(), site, scope_stack_.back(), false};
  return push(std::move(n), std::move(value));
}

Var Graph::placeholder(const Shape& s, DType dt, Site site) {
  if (reusing_) cut_record();  // a rebuilt record has no placeholders
  Attrs a;
  a.shape = s;
  return push(Node{&placeholder_p, {}, a, s, dt, site, scope_stack_.back(), true}, Tensor());
}

void Graph::bind(const ParamSet& ps) {
  if (params_ && params_ != &ps) throw Error("graph: a different ParamSet is already bound");
  params_ = &ps;
  param_leaf_.resize(ps.count(), -1);
}

void Graph::bind(const ParamSet& ps, std::span<const Var> leaves) {
  bind(ps);
  if (static_cast<int32_t>(leaves.size()) != ps.count())
    throw Error(fmt::format("graph: bind with {} leaves for {} parameters", leaves.size(), ps.count()));
  for (int32_t i = 0; i < ps.count(); ++i) {
    const Var& v = leaves[i];
    if (v.graph() != this || v.shape() != ps.shape(ParamId{i}) || v.dtype() != ps.dtype())
      throw ShapeError(fmt::format("graph: leaf {} does not fit parameter '{}' {} {}", i, ps.name(ParamId{i}),
                                   ps.shape(ParamId{i}).str(), dtype_name(ps.dtype())));
    param_leaf_[i] = v.id();
  }
}

void Graph::bind(const ParamSet& ps, const ParamVec& at) {
  bind_checked(ps, at);
  // the snapshot: later writes to `at` (an optimizer's step) do not change this graph
  param_values_ = at.dtype() == ps.dtype() ? at.flat().clone() : at.flat().astype(ps.dtype());
}

void Graph::bind_checked(const ParamSet& ps, const ParamVec& at) {
  bind(ps);
  if (param_values_.defined() || std::any_of(param_leaf_.begin(), param_leaf_.end(), [](int32_t l) { return l >= 0; }))
    throw Error("graph: bind at θ after parameters were bound");
  if (at.layout()) check_layout(*ps.layout(), *at.layout(), "graph: bind at θ");
  if (at.size() != ps.numel())
    throw ShapeError(fmt::format("graph: bind at θ with {} values for {} parameters", at.size(), ps.numel()));
}

void Graph::bind_shared(const ParamSet& ps, const ParamVec& at) {
  if (at.dtype() != ps.dtype())
    throw Error(fmt::format("graph: bind_shared at a {} θ for {} parameters (bind converts, bind_shared reads in place)",
                            dtype_name(at.dtype()), dtype_name(ps.dtype())));
  bind_checked(ps, at);
  param_values_ = at.flat();  // the caller's buffer
#ifndef NDEBUG
  shared_fingerprint_ = fingerprint(param_values_);
#endif
}

Var Graph::operator[](ParamId p) {
  if (!params_) throw Error("graph: g[param] needs g.bind(params) first");
  if (p.index < 0 || p.index >= params_->count())
    throw Error(fmt::format("graph: parameter index {} out of range", p.index));
  if (param_leaf_.size() < static_cast<size_t>(params_->count())) param_leaf_.resize(params_->count(), -1);
  if (param_leaf_[p.index] >= 0) return Var(this, param_leaf_[p.index]);
  // a snapshot (later optimizer steps do not change this graph), or after bind_shared a view of the
  // caller's θ, which the caller leaves unchanged while the graph lives
  Tensor v = param_values_.defined() ? param_values_.view(params_->layout()->entries[p.index].offset, params_->shape(p))
                                     : params_->value(p).clone();
  Attrs a;
  a.shape = v.shape();
  a.begin = p.index;  // which parameter, for a rebuild to recognise the leaf
  ScopeGuard s(*this, params_->name(p));
  if (reusing_) {
    if (const int32_t id = reuse_leaf(param_p, v.shape(), v.dtype(), p.index); id >= 0) {
      values_[id] = std::move(v);
      param_leaf_[p.index] = id;
      return Var(this, id);
    }
  }
  Var leaf = push(Node{&param_p, {}, a, v.shape(), v.dtype(), Site{"<param>", 0}, scope_stack_.back(), false},
                  std::move(v));
  param_leaf_[p.index] = leaf.id();
  return leaf;
}

std::vector<Var> Graph::param_leaves() {
  std::vector<Var> out;
  if (!params_) return out;
  for (int32_t i = 0; i < params_->count(); ++i) out.push_back((*this)[ParamId{i}]);
  return out;
}

Var Graph::add(const Primitive& prim, std::span<const Var> in, Attrs attrs, Site site, DType leaf_dtype) {
  if (prim.arity >= 0 && static_cast<int>(in.size()) != prim.arity)
    throw InternalError(fmt::format("{}: expects {} inputs, got {}", prim.name, prim.arity, in.size()));
  // The inputs' shapes, copied into raw storage: default-constructing eight Shapes (320 zeroed bytes)
  // per node was a tenth of a small RNN's building time.
  static_assert(std::is_trivially_copyable_v<Shape> && std::is_trivially_destructible_v<Shape>);
  alignas(Shape) unsigned char storage[8 * sizeof(Shape)];
  std::vector<Shape> many;
  if (in.size() > 8) many.resize(in.size());
  Shape* sh = in.size() > 8 ? many.data() : reinterpret_cast<Shape*>(storage);
  DType dtype = leaf_dtype;
  bool dynamic = false;
  for (size_t i = 0; i < in.size(); ++i) {
    const Var& v = in[i];
    if (v.empty()) throw InternalError(fmt::format("{}: input {} is a symbolic zero", prim.name, i));
    if (v.graph() != this)
      throw Error(fmt::format("{}: input {} belongs to another graph at {}", prim.name, i, site.str()));
    const Node& src = nodes_[v.id()];
    if (i == 0) dtype = src.dtype;
    else if (src.dtype != dtype)
      throw ShapeError(fmt::format("{}: mixed dtypes {} and {} at {}", prim.name, dtype_name(dtype),
                                   dtype_name(src.dtype), site.str()));
    dynamic |= src.dynamic;
    new (sh + i) Shape(src.shape);
  }
  Shape shape;
  try {
    shape = prim.shape(std::span<const Shape>(sh, in.size()), attrs);
  } catch (const ShapeError& e) {
    std::string shapes_str;
    for (size_t i = 0; i < in.size(); ++i) shapes_str += (i ? " x " : "") + sh[i].str();
    std::string scope = scopes_[scope_stack_.back()];
    throw ShapeError(fmt::format("{}: {}: {} at {}{}", prim.name, e.what(), shapes_str, site.str(),
                                 scope.empty() ? "" : " (scope " + scope + ")"));
  }
  const bool known = !dynamic;
  if (reusing_) {
    Node& r = nodes_[cursor_];
    bool same = r.prim == &prim && r.shape == shape && r.dtype == dtype && r.dynamic == dynamic && r.in.size() == in.size();
    for (size_t i = 0; same && i < in.size(); ++i) same = r.in[i] == in[i].id();
    if (same) {
      r.attrs = std::move(attrs);
      r.site = site;
      r.scope = scope_stack_.back();
      const int32_t id = cursor_;
      advance_cursor();
      if (known && !deferred_) eval(id);
      return Var(this, id);
    }
    cut_record();
  }
  Node n{&prim, {}, std::move(attrs), shape, dtype, site, scope_stack_.back(), dynamic};
  n.in.reserve(in.size());
  for (const Var& v : in) n.in.push_back(v.id());
  Var v = push(std::move(n), Tensor());
  if (known && !deferred_) eval(v.id());
  return v;
}

Graph::Memo& Graph::memo(const void* tag, Var input) {
  if (input.graph() != this) throw InternalError("graph: memo keyed by a node of another graph");
  return memos_[{tag, input.id()}];
}

void Graph::rebuild() {
  if (any_dynamic_)
    throw Error("graph: rebuild of a graph with placeholders (a linearization's segments point into its nodes)");
  release_values();
  tags_.clear();
  memos_.clear();
  deferred_ = false;
  params_ = nullptr;
  param_leaf_.clear();
  scope_stack_.assign(1, 0);
  scope_cursor_ = 1;
  std::fill(evals_.begin(), evals_.end(), 0);
  total_evals_ = 0;
  cursor_ = 0;
  reused_ = 0;
  reusing_ = !nodes_.empty();
}

// θ too: after bind(ps, at) a copy, after bind_shared the caller's buffer, which the caller may write
// once the graph's evaluation is over.
void Graph::release_values() {
#ifndef NDEBUG
  if (shared_fingerprint_ && fingerprint(param_values_) != *shared_fingerprint_) {
    std::fprintf(stderr, "graph: the θ given to bind_shared was written in place while the graph read it\n");
    std::abort();
  }
#endif
  param_values_ = Tensor();
  shared_fingerprint_.reset();
  for (Tensor& v : values_) v = Tensor();
  placed_.clear();
}

int32_t Graph::reuse_leaf(const Primitive& prim, const Shape& s, DType dt, int64_t param) {
  const Node& r = nodes_[cursor_];
  if (r.prim != &prim || r.shape != s || r.dtype != dt || (param >= 0 && r.attrs.begin != param)) {
    cut_record();
    return -1;
  }
  nodes_[cursor_].scope = scope_stack_.back();
  const int32_t id = cursor_;
  advance_cursor();
  return id;
}

void Graph::advance_cursor() {
  ++cursor_;
  ++reused_;
  if (cursor_ == static_cast<int32_t>(nodes_.size())) reusing_ = false;  // the record is used up: append
}

void Graph::cut_record() {
  nodes_.erase(nodes_.begin() + cursor_, nodes_.end());
  values_.resize(static_cast<size_t>(cursor_));
  evals_.resize(static_cast<size_t>(cursor_));
  reusing_ = false;
}

const Tensor& Graph::value(int32_t id) const {
  if (pending(id)) evaluate_pending_from(std::span<const int32_t>(&id, 1));
  const Tensor& t = values_[id];
  if (!t.defined())
    throw Error(fmt::format("graph: node has no value yet (it depends on a placeholder): {}", describe(id)));
  return t;
}

bool Graph::set_deferred(bool on) {
  bool was = deferred_;
  deferred_ = on;
  return was;
}

void Graph::evaluate_pending(std::span<const Var> roots) {
  std::vector<int32_t> ids;
  ids.reserve(roots.size());
  for (const Var& v : roots)
    if (!v.empty()) {
      if (v.graph() != this) throw Error("graph: evaluate_pending on a node of another graph");
      ids.push_back(v.id());
    }
  evaluate_pending_from(ids);
}

// Collects the pending ancestors of the roots (walking through unevaluated dynamic nodes, whose
// inputs may be pending) and evaluates them in id order, which is a topological order of the tape.
// Iterative: a recurrence makes ancestor chains thousands of nodes deep.
void Graph::evaluate_pending_from(std::span<const int32_t> roots) const {
  int32_t hi = -1;
  for (int32_t r : roots) hi = std::max(hi, r);
  if (hi < 0) return;
  std::vector<char> seen(static_cast<size_t>(hi) + 1, 0);
  std::vector<int32_t> stack;
  int32_t lo = hi;
  auto visit = [&](int32_t id) {
    if (seen[id] || values_[id].defined()) return;  // evaluated known nodes have evaluated ancestors
    seen[id] = 1;
    lo = std::min(lo, id);
    stack.push_back(id);
  };
  for (int32_t r : roots) visit(r);
  while (!stack.empty()) {
    int32_t id = stack.back();
    stack.pop_back();
    for (int32_t in : nodes_[id].in) visit(in);
  }
  for (int32_t id = lo; id <= hi; ++id)
    if (seen[id] && !nodes_[id].dynamic) run_kernel(id);
}

void Graph::set_value(Var p, Tensor value) {
  const Node& n = nodes_[p.id()];
  if (n.prim != &placeholder_p)
    throw Error(fmt::format("graph: set_value on a node that is not a placeholder {}", describe(p.id())));
  if (value.shape() != n.shape || value.dtype() != n.dtype)
    throw ShapeError(fmt::format("graph: value {} {} does not fit leaf {}", value.shape().str(),
                                 dtype_name(value.dtype()), describe(p.id())));
  values_[p.id()] = std::move(value);
}

void Graph::eval(int32_t id) { run_kernel(id); }

bool Graph::place(Var v, Tensor destination) {
  if (v.graph() != this) throw Error("graph: place on a node of another graph");
  const Node& n = nodes_[v.id()];
  if (!destination.defined() || destination.shape() != n.shape || destination.dtype() != n.dtype)
    throw ShapeError(fmt::format("graph: place {} {} for {}", destination.shape().str(),
                                 dtype_name(destination.dtype()), describe(v.id())));
  if (!pending(v.id())) return false;
  return placed_.try_emplace(v.id(), std::move(destination)).second;  // a node placed twice keeps the first
}

void Graph::run_kernel(int32_t id) const {
  const Node& n = nodes_[id];
  if (n.prim->arity == 0 && n.in.empty() && n.prim->eval == no_eval) return;  // leaves keep their value
  const Tensor* args[8];
  std::vector<const Tensor*> many;
  if (n.in.size() > 8) many.resize(n.in.size());
  const Tensor** a = n.in.size() > 8 ? many.data() : args;
  for (size_t i = 0; i < n.in.size(); ++i) a[i] = &value(n.in[i]);
  Tensor destination;
  if (!placed_.empty()) {
    auto it = placed_.find(id);
    if (it != placed_.end()) {
      destination = std::move(it->second);
      placed_.erase(it);
      // a kernel writing over its own operands would read what it has written (checked here, where
      // every input has its value)
      for (size_t i = 0; i < n.in.size(); ++i)
        if (overlap(*a[i], destination))
          throw Error(fmt::format("graph: the destination given to place overlaps input {} of {}", i, describe(id)));
    }
  }
  values_[id] = n.prim->eval(EvalArgs{std::span<const Tensor* const>(a, n.in.size()), n.attrs, n.shape, n.dtype,
                                      destination.defined() ? &destination : nullptr});
  if (destination.defined() && values_[id].raw() != destination.raw() && values_[id].shape() == n.shape &&
      values_[id].dtype() == n.dtype) {  // a kernel that ignores destinations (a view, an elementwise op)
    std::memcpy(destination.raw(), values_[id].raw(), static_cast<size_t>(n.shape.size()) * dtype_size(n.dtype));
    values_[id] = std::move(destination);
  }
  TG_ASSERT(values_[id].shape() == n.shape && values_[id].dtype() == n.dtype, "{}: kernel returned {} for {}",
            n.prim->name, values_[id].shape().str(), n.shape.str());
  ++evals_[id];
  ++total_evals_;
  if (opt_.check_finite && !values_[id].all_finite())
    throw NonFiniteError(fmt::format("check_finite: first non-finite value at {}", describe(id)));
}

// Scope names fill slots from scope_cursor_ on: appended in a fresh graph, written over the record's
// (where they differ) in a rebuild, so a graph rebuilt for every step keeps one build's names.
void Graph::push_scope(std::string name) {
  const std::string& outer = scopes_[scope_stack_.back()];
  std::string full = outer.empty() ? std::move(name) : outer + "/" + name;
  const auto slot = static_cast<size_t>(scope_cursor_++);
  if (slot == scopes_.size()) scopes_.push_back(std::move(full));
  else if (scopes_[slot] != full) scopes_[slot] = std::move(full);
  scope_stack_.push_back(static_cast<int32_t>(slot));
}

void Graph::pop_scope() {
  TG_ASSERT(scope_stack_.size() > 1, "scope stack underflow");
  scope_stack_.pop_back();
}

void Graph::tag(Var v, const std::string& name) {
  if (v.graph() != this) throw Error(fmt::format("graph: tag '{}' on a node of another graph", name));
  tags_[name].push_back(v.id());
}

std::vector<Var> Graph::tagged(const std::string& name) const {
  std::vector<Var> out;
  auto it = tags_.find(name);
  if (it != tags_.end())
    for (int32_t id : it->second) out.emplace_back(const_cast<Graph*>(this), id);
  return out;
}

std::string Graph::describe(int32_t id) const {
  const Node& n = nodes_[id];
  std::string s = fmt::format("%{} = {}", id, n.prim->name);
  for (int32_t i : n.in) s += fmt::format(" %{}", i);
  s += fmt::format(" : {} {}", n.shape.str(), n.dtype == DType::f32 ? "f32" : "f64");
  if (!scopes_[n.scope].empty()) s += "  " + scopes_[n.scope];
  s += "  " + n.site.str();
  return s;
}

std::string Graph::dump() const {
  std::string s;
  for (int32_t i = 0; i < size(); ++i) s += describe(i) + "\n";
  return s;
}

ScopeGuard::ScopeGuard(Graph& g, const std::string& name) : g_(g) { g_.push_scope(name); }
ScopeGuard::ScopeGuard(Graph& g, const std::string& name, long index) : g_(g) {
  g_.push_scope(name + "=" + std::to_string(index));
}
ScopeGuard::~ScopeGuard() { g_.pop_scope(); }

}  // namespace tg
