#include "core/ad.h"

#include <algorithm>
#include <cstring>
#include <map>
#include <memory>

#include "core/error.h"
#include "ops/ops.h"
#include "ops/families.h"

namespace tg::ad {

namespace {
Graph& graph_of(std::span<const Var> vs, const char* what) {
  for (const Var& v : vs)
    if (!v.empty()) return *v.graph();
  throw Error(fmt::format("{}: no nodes given", what));
}

// A node's rule inputs, copied out of the tape (rules append nodes, which may move the tape).
struct RuleCall {
  const Primitive* prim;
  std::vector<Var> x;
  Attrs attrs;
  Site site;
};
RuleCall rule_call(Graph& g, int32_t id) {
  const Node& n = g.node(id);
  RuleCall c{n.prim, {}, n.attrs, n.site};
  c.x.reserve(n.in.size());
  for (int32_t i : n.in) c.x.emplace_back(&g, i);
  return c;
}

// Cotangent contributions to one node, summed when the reverse sweep reaches it (all its consumers
// have been visited by then).
struct Contributions {
  Var first;
  std::vector<Var> more;
  bool empty() const { return first.empty(); }
  void add(Var v) {
    if (first.empty()) first = v;
    else more.push_back(v);
  }
};

// The regroupings of one sweep often concatenate the same cotangents (an LSTM's gate cotangents are
// an operand of W_gh's product and the rows of W_gx's scatter): one concat node serves them all.
class ConcatCache {
 public:
  Var concat(const std::vector<Var>& xs, int axis, Site site) {
    std::vector<int32_t> key;
    key.reserve(xs.size() + 1);
    key.push_back(axis);
    for (const Var& v : xs) key.push_back(v.id());
    auto it = made_.find(key);
    if (it != made_.end()) return it->second;
    Var c = ops::concat(xs, axis, site);
    made_.emplace(std::move(key), c);
    return c;
  }

 private:
  std::map<std::vector<int32_t>, Var> made_;
};

// Sums the contributions to one cotangent. A chain of adds would materialise each one: for a weight
// shared by T steps, T products of the weight's full shape plus T adds, hundreds of megabytes per
// pass. Contributions this sweep built (ids >= fresh: nothing has evaluated them yet, see
// Graph::set_deferred) are regrouped first by identities that keep the result a graph of ordinary ops:
//   sum_t op(A_t) op(B_t)             = op([A_t]) op([B_t])    operands concatenated along the inner axis
//   sum_t scatter_add_rows(x_t, i_t)   = scatter_add_rows([x_t], [i_t])
//   sum_t pad(x_t), disjoint ranges    = concat of the pieces, zeros in the gaps (an LSTM's four gates)
// The products are only regrouped when copying the operands costs less than what it saves: the adds'
// elements, and 2(n - 1) - 2 nodes (n - 1 products and n - 1 adds, less the two concats) at kNodeElems
// elements each.
// A node costs ~0.25 µs to build and run however small (docs/results/engine_bench.md: an H = 8 RNN step,
// 1,542 nodes in 0.38 ms), about what copying 1,000 floats costs; without that term the weight
// gradient of a small RNN's recurrence stayed T products of [H,B] by [B,H] and T - 1 adds.
constexpr int64_t kNodeElems = 1024;
Var sum_contributions(Graph& g, Contributions& c, int32_t fresh, ConcatCache& concats) {
  if (c.more.empty()) return c.first;
  const Primitive* matmul_p = &ops::matmul_p;
  const Primitive* scatter_p = &ops::scatter_add_rows_p;
  const Primitive* pad_p = &ops::pad_p;
  std::vector<Var> parts;
  parts.reserve(c.more.size() + 1);
  parts.push_back(c.first);
  parts.insert(parts.end(), c.more.begin(), c.more.end());
  std::vector<char> used(parts.size(), 0);
  auto fresh_node = [&](size_t i, const Primitive* p) -> const Node* {
    if (used[i] || parts[i].id() < fresh) return nullptr;
    const Node& n = g.node(parts[i].id());
    return n.prim == p ? &n : nullptr;
  };
  std::vector<Var> sums;
  std::vector<size_t> group;

  for (int flags = 0; flags < 4; ++flags) {
    const bool ta = flags & 1, tb = flags & 2;
    group.clear();
    int64_t operand_elems = 0;
    for (size_t i = 0; i < parts.size(); ++i)
      if (const Node* n = fresh_node(i, matmul_p); n && n->attrs.ta == ta && n->attrs.tb == tb) {
        group.push_back(i);
        operand_elems += g.node(n->in[0]).shape.size() + g.node(n->in[1]).shape.size();
      }
    if (group.size() < 2) continue;
    const int64_t n = static_cast<int64_t>(group.size());
    const int64_t saved_elems = (n - 1) * parts[group[0]].shape().size() + (2 * (n - 1) - 2) * kNodeElems;
    if (operand_elems > saved_elems) continue;
    std::vector<Var> as, bs;
    for (size_t i : group) {
      const Node& n = g.node(parts[i].id());
      as.emplace_back(&g, n.in[0]);
      bs.emplace_back(&g, n.in[1]);
      used[i] = 1;
    }
    const Site site = g.node(parts[group[0]].id()).site;
    sums.push_back(ops::matmul(concats.concat(as, ta ? 0 : 1, site), concats.concat(bs, tb ? 1 : 0, site), ta, tb, site));
  }

  for (size_t i = 0; i < parts.size(); ++i) {
    const Node* lead = fresh_node(i, scatter_p);
    if (!lead) continue;
    const int64_t rows = lead->attrs.shape[0];
    group.clear();
    for (size_t j = i; j < parts.size(); ++j)
      if (const Node* n = fresh_node(j, scatter_p); n && n->attrs.shape[0] == rows) group.push_back(j);
    if (group.size() < 2) continue;
    std::vector<Var> xs;
    std::vector<int32_t> index;
    for (size_t j : group) {
      const Node& n = g.node(parts[j].id());
      xs.emplace_back(&g, n.in[0]);
      index.insert(index.end(), n.attrs.index->begin(), n.attrs.index->end());
      used[j] = 1;
    }
    const Site site = lead->site;
    sums.push_back(ops::scatter_add_rows(concats.concat(xs, 0, site), ops::make_index(std::move(index)), rows, site));
  }

  for (size_t i = 0; i < parts.size(); ++i) {
    const Node* lead = fresh_node(i, pad_p);
    if (!lead) continue;
    const int axis = lead->attrs.axis;
    const Shape target = lead->attrs.shape;
    group.clear();
    for (size_t j = i; j < parts.size(); ++j)
      if (const Node* n = fresh_node(j, pad_p); n && n->attrs.axis == axis && n->attrs.shape == target)
        group.push_back(j);
    if (group.size() < 2) continue;
    auto begin_of = [&](size_t j) { return g.node(parts[j].id()).attrs.begin; };
    std::sort(group.begin(), group.end(), [&](size_t x, size_t y) { return begin_of(x) < begin_of(y); });
    bool disjoint = true;
    for (size_t k = 1; k < group.size(); ++k) {
      const Node& prev = g.node(parts[group[k - 1]].id());
      disjoint &= prev.attrs.begin + g.node(prev.in[0]).shape[axis] <= begin_of(group[k]);
    }
    if (!disjoint) continue;
    const Site site = lead->site;
    const DType dt = lead->dtype;
    std::vector<Var> pieces;
    int64_t at = 0;
    auto zeros = [&](int64_t len) {
      Shape s = target;
      s[axis] = len;
      pieces.push_back(ops::fill(g, s, 0.0, dt, site));
    };
    for (size_t j : group) {
      // copies, not a Node&: zeros() adds a node, which may move the graph's node storage
      const int64_t begin = g.node(parts[j].id()).attrs.begin;
      const int32_t piece = g.node(parts[j].id()).in[0];
      if (begin > at) zeros(begin - at);
      pieces.emplace_back(&g, piece);
      at = begin + g.node(piece).shape[axis];
      used[j] = 1;
    }
    if (at < target[axis]) zeros(target[axis] - at);
    sums.push_back(ops::concat(pieces, axis, site));
  }

  // What is left is added up, a product this sweep built (still pending) folded into its sum as an addmm
  // (BLAS beta = 1): a recurrence's h_bar + delta W_h^T is one node and one pass instead of two. The
  // products go last so that each has a sum to fold into; the product node stays pending, never run
  // (unless another sum reads it too: then it runs there as well, the same value computed twice).
  std::vector<Var> products;
  for (size_t i = 0; i < parts.size(); ++i)
    if (!used[i]) (fresh_node(i, matmul_p) ? products : sums).push_back(parts[i]);
  Var total;
  for (const Var& v : sums) total = ops::add(total, v);
  for (const Var& p : products) {
    if (total.empty()) {
      total = p;
      continue;
    }
    // copies, not a Node&: addmm adds a node, which may move the graph's node storage
    const Node& n = g.node(p.id());
    const Var a(&g, n.in[0]), b(&g, n.in[1]);
    const bool ta = n.attrs.ta, tb = n.attrs.tb;
    const Site site = n.site;
    total = ops::addmm(total, a, b, ta, tb, site);
  }
  c.first = total;
  c.more.clear();
  return total;
}

// Nodes built inside the guard stay pending until something reads them (Graph::set_deferred).
class DeferEvaluation {
 public:
  explicit DeferEvaluation(Graph& g) : g_(g), was_(g.set_deferred(true)) {}
  ~DeferEvaluation() { g_.set_deferred(was_); }
  DeferEvaluation(const DeferEvaluation&) = delete;
  DeferEvaluation& operator=(const DeferEvaluation&) = delete;

 private:
  Graph& g_;
  bool was_;
};

// A tangent's products with many primal operands, A_i dB (h_{t-1} dW_h in each step of a recurrence's
// tangent), computed as one product of the operands stacked, [A_1; ...; A_n] dB, whose rows the nodes
// then read. The stacked operands depend on primal values only, so a Linearization's segment stacks them
// once (a plain jvp call stacks them each time) and each Gauss-Newton product runs one large product
// instead of T small ones (at H = 512, B = 128 a quarter of the product's FLOPs; the stacked shape runs
// faster per FLOP: docs/results/engine_bench.md). The cost is the stacked copy of the operands, kept by
// the segment. Only weights of ops::kSharedWeightMin elements or more (ops/families.h): for smaller ones
// the slices and adds are nodes of their own to pay for. Measured above it: faster at H = 512 (B = 32,
// 128) and H = 256, B = 128; 0.5-4% slower at H = 256, B = 32.

struct StackedTerm {
  Var product;  // [sum of rows, n]
  int64_t begin, end;
  int b_index;  // the node's B operand: 1 (matmul) or 2 (addmm, addmm_packed)
};

// The B operand's index in a product node, 0 for other nodes.
int product_b_index(const Node& n) {
  if (n.attrs.ta) return 0;  // A read transposed: its rows are not the result's rows
  if (n.prim == &ops::matmul_p) return 1;
  if (n.prim == &ops::addmm_p) return 2;
  if (n.prim == &ops::addmm_packed_p) return 2;  // (C, A, B, B's packed copy)
  return 0;
}

std::map<int32_t, StackedTerm> stack_tangent_products(Graph& g, int32_t lo, int32_t hi,
                                                     const std::vector<char>& needed,
                                                     const std::vector<char>& is_input, const std::vector<Var>& tan) {
  std::map<std::pair<int32_t, bool>, std::vector<int32_t>> groups;  // (B, tb) -> the products reading it
  for (int32_t id = lo; id <= hi; ++id) {
    if (!needed[id - lo] || is_input[id - lo]) continue;
    const Node& n = g.node(id);
    const int bi = product_b_index(n);
    if (bi == 0) continue;
    const int32_t b = n.in[bi];
    if (b < lo || !is_input[b - lo] || tan[b - lo].empty() || g.node(b).shape.size() < ops::kSharedWeightMin) continue;
    groups[{b, n.attrs.tb}].push_back(id);
  }
  std::map<int32_t, StackedTerm> stacked;
  for (const auto& [key, ids] : groups) {
    if (ids.size() < 2) continue;
    std::vector<Var> as;
    as.reserve(ids.size());
    std::vector<int> b_index;
    for (int32_t id : ids) {
      b_index.push_back(product_b_index(g.node(id)));
      as.emplace_back(&g, g.node(id).in[b_index.back() - 1]);
    }
    const Site site = g.node(ids[0]).site;
    const Var product = ops::matmul(ops::concat(as, 0, site), tan[key.first - lo], false, key.second, site);
    int64_t row = 0;
    for (size_t i = 0; i < ids.size(); ++i) {
      const int64_t rows = as[i].shape()[0];
      stacked[ids[i]] = StackedTerm{product, row, row + rows, b_index[i]};
      row += rows;
    }
  }
  return stacked;
}

void check_derivative(Graph& g, Var d, int32_t id, const char* kind) {
  if (d.empty()) return;
  const Node& n = g.node(id);
  if (d.shape() != n.shape || d.dtype() != n.dtype)
    throw InternalError(fmt::format("{} rule of {} returned {} for a {} node: {}", kind, n.prim->name,
                                    d.shape().str(), n.shape.str(), g.describe(id)));
}
}  // namespace

std::vector<Var> jvp(std::span<const Var> outputs, std::span<const Var> inputs, std::span<const Var> tangents) {
  if (inputs.size() != tangents.size()) throw Error("jvp: one tangent per input is needed");
  std::vector<Var> result(outputs.size());
  if (outputs.empty() || inputs.empty()) return result;
  Graph& g = graph_of(outputs, "jvp");
  int32_t lo = g.size(), hi = -1;
  for (size_t i = 0; i < inputs.size(); ++i) {
    if (inputs[i].empty() || tangents[i].empty()) continue;
    if (tangents[i].shape() != inputs[i].shape() || tangents[i].dtype() != inputs[i].dtype())
      throw ShapeError(fmt::format("jvp: tangent {} for input {}", tangents[i].shape().str(), g.describe(inputs[i].id())));
    lo = std::min(lo, inputs[i].id());
  }
  for (const Var& o : outputs)
    if (!o.empty()) hi = std::max(hi, o.id());
  if (hi < lo) return result;
  const size_t n = static_cast<size_t>(hi - lo + 1);
  // needed: ancestors of the outputs (so no tangent node is built that nothing reads)
  // (inputs' tangents are given, so nothing upstream of an input is needed on their account)
  std::vector<char> needed(n, 0), is_input(n, 0);
  for (size_t i = 0; i < inputs.size(); ++i)
    if (!inputs[i].empty() && !tangents[i].empty() && inputs[i].id() <= hi) is_input[inputs[i].id() - lo] = 1;
  for (const Var& o : outputs)
    if (!o.empty() && o.id() >= lo) needed[o.id() - lo] = 1;
  for (int32_t id = hi; id >= lo; --id) {
    if (!needed[id - lo] || is_input[id - lo]) continue;
    for (int32_t in : g.node(id).in)
      if (in >= lo) needed[in - lo] = 1;
  }
  std::vector<Var> tan(n);
  for (size_t i = 0; i < inputs.size(); ++i) {
    if (inputs[i].empty() || tangents[i].empty() || inputs[i].id() > hi) continue;  // built after every output
    size_t k = static_cast<size_t>(inputs[i].id() - lo);
    is_input[k] = 1;
    tan[k] = ops::add(tan[k], tangents[i]);
  }
  const std::map<int32_t, StackedTerm> stacked = stack_tangent_products(g, lo, hi, needed, is_input, tan);
  std::vector<Var> xdot;
  for (int32_t id = lo; id <= hi; ++id) {
    const size_t k = static_cast<size_t>(id - lo);
    if (!needed[k] || is_input[k]) continue;
    const Node& nd = g.node(id);
    if (!nd.prim->differentiable || !nd.prim->jvp) continue;
    xdot.assign(nd.in.size(), Var());
    bool any = false;
    for (size_t i = 0; i < nd.in.size(); ++i)
      if (nd.in[i] >= lo && !tan[nd.in[i] - lo].empty()) {
        xdot[i] = tan[nd.in[i] - lo];
        any = true;
      }
    if (!any) continue;
    RuleCall c = rule_call(g, id);
    const auto st = stacked.find(id);
    Var term;
    if (st != stacked.end()) {
      // A dB is read from the stacked product: the rule sees B as constant. For addmm the rows are C's
      // tangent, or added to it when C has one, and the rule's product adds dA B to them (beta = 1);
      // for matmul they are added to the rule's result.
      term = ops::slice(st->second.product, 0, st->second.begin, st->second.end, c.site);
      xdot[st->second.b_index] = Var();
      if (st->second.b_index == 2) {
        xdot[0] = ops::add(xdot[0], term, c.site);
        term = Var();
      }
    }
    Var d;
    if (std::any_of(xdot.begin(), xdot.end(), [](const Var& v) { return !v.empty(); }))
      d = c.prim->jvp(RuleArgs{c.x, Var(&g, id), c.attrs, c.site}, xdot);
    d = ops::add(d, term, c.site);
    check_derivative(g, d, id, "jvp");
    tan[k] = d;
  }
  for (size_t i = 0; i < outputs.size(); ++i)
    if (!outputs[i].empty() && outputs[i].id() >= lo) result[i] = tan[outputs[i].id() - lo];
  return result;
}

std::vector<Var> vjp(std::span<const Seed> seeds, std::span<const Var> wrt, bool independent,
                     std::span<const Tensor> into) {
  if (!into.empty() && into.size() != wrt.size())
    throw Error(fmt::format("vjp: {} destinations for {} nodes", into.size(), wrt.size()));
  std::vector<Var> result(wrt.size());
  if (seeds.empty() || wrt.empty()) return result;
  std::vector<Var> seed_nodes;
  for (const Seed& s : seeds) seed_nodes.push_back(s.at);
  Graph& g = graph_of(seed_nodes, "vjp");
  int32_t lo = g.size(), hi = -1;
  for (const Var& w : wrt)
    if (!w.empty()) lo = std::min(lo, w.id());
  for (const Seed& s : seeds) {
    if (s.at.empty() || s.cotangent.empty()) continue;
    if (s.cotangent.shape() != s.at.shape() || s.cotangent.dtype() != s.at.dtype())
      throw ShapeError(fmt::format("vjp: seed {} {} for node {}", s.cotangent.shape().str(),
                                   dtype_name(s.cotangent.dtype()), g.describe(s.at.id())));
    hi = std::max(hi, s.at.id());
  }
  if (hi < lo) return result;
  const size_t n = static_cast<size_t>(hi - lo + 1);
  // relevant = depends on a wrt node AND is an ancestor of a seed
  std::vector<char> dep(n, 0), anc(n, 0), is_wrt(n, 0);
  for (const Var& w : wrt)
    if (!w.empty() && w.id() <= hi) dep[w.id() - lo] = is_wrt[w.id() - lo] = 1;
  for (int32_t id = lo; id <= hi; ++id) {
    if (dep[id - lo]) continue;
    const Node& nd = g.node(id);
    if (!nd.prim->differentiable) continue;
    for (int32_t in : nd.in)
      if (in >= lo && dep[in - lo]) {
        dep[id - lo] = 1;
        break;
      }
  }
  for (const Seed& s : seeds)
    if (!s.at.empty() && s.at.id() >= lo) anc[s.at.id() - lo] = 1;
  for (int32_t id = hi; id >= lo; --id) {
    if (!anc[id - lo]) continue;
    for (int32_t in : g.node(id).in)
      if (in >= lo) anc[in - lo] = 1;
  }
  // Derivative nodes are built deferred, so contributions that sum_contributions regroups never run.
  const int32_t fresh = g.size();
  DeferEvaluation defer(g);
  std::vector<Contributions> cot(n);
  ConcatCache concats;
  for (const Seed& s : seeds) {
    if (s.at.empty() || s.cotangent.empty() || s.at.id() < lo) continue;
    size_t k = static_cast<size_t>(s.at.id() - lo);
    if (dep[k]) cot[k].add(s.cotangent);
  }
  // Rules take std::span<const bool>, which std::vector<bool> cannot give: a plain buffer, grown for
  // variadic nodes (a concat of every time step's logits has T inputs).
  std::unique_ptr<bool[]> need(new bool[8]);
  size_t need_cap = 8;
  std::vector<Var> xbar;
  for (int32_t id = hi; id >= lo; --id) {
    const size_t k = static_cast<size_t>(id - lo);
    if (cot[k].empty() || !dep[k] || !anc[k] || (independent && is_wrt[k])) continue;
    const Node& nd = g.node(id);
    if (!nd.prim->differentiable || !nd.prim->vjp) continue;
    const size_t arity = nd.in.size();
    if (arity > need_cap) {
      need_cap = arity;
      need.reset(new bool[need_cap]);
    }
    bool any = false;
    for (size_t i = 0; i < arity; ++i) {
      need[i] = nd.in[i] >= lo && dep[nd.in[i] - lo] && anc[nd.in[i] - lo];
      any |= need[i];
    }
    if (!any) continue;
    Var y_bar = sum_contributions(g, cot[k], fresh, concats);
    RuleCall c = rule_call(g, id);
    xbar.assign(c.x.size(), Var());
    c.prim->vjp(RuleArgs{c.x, Var(&g, id), c.attrs, c.site}, y_bar, std::span<const bool>(need.get(), arity), xbar);
    for (size_t i = 0; i < xbar.size(); ++i) {
      if (!need[i] || xbar[i].empty()) continue;
      check_derivative(g, xbar[i], c.x[i].id(), "vjp");
      cot[static_cast<size_t>(c.x[i].id() - lo)].add(xbar[i]);
    }
  }
  for (size_t i = 0; i < wrt.size(); ++i)
    if (!wrt[i].empty() && wrt[i].id() <= hi) {
      Contributions& c = cot[wrt[i].id() - lo];
      if (!c.empty()) result[i] = sum_contributions(g, c, fresh, concats);
    }
  // Known results get their values now, as eager nodes would have (and only what they need runs),
  // each into its destination if it has one (a node that is the result twice goes into the first; the
  // caller copies it into the second).
  for (size_t i = 0; i < into.size(); ++i)
    if (!result[i].empty() && into[i].defined() && result[i].shape() == into[i].shape() &&
        result[i].dtype() == into[i].dtype())
      g.place(result[i], into[i]);
  g.evaluate_pending(result);
  return result;
}

std::vector<Var> grad(Var y, std::span<const Var> wrt, std::span<const Tensor> into) {
  if (y.shape().size() != 1)
    throw ShapeError(fmt::format("grad: output must be a scalar, got {}: {}", y.shape().str(),
                                 y.graph()->describe(y.id())));
  Seed s{y, ops::fill(*y.graph(), y.shape(), 1.0, y.dtype())};
  return vjp(std::span<const Seed>(&s, 1), wrt, false, into);
}

Tensor value_or_zeros(Var v, const Shape& shape, DType dt) {
  if (v.empty()) return Tensor::zeros(shape, dt);
  return v.value();
}

ParamVec pack(const ParamSet& ps, std::span<const Tensor> parts) {
  ParamVec v = ParamVec::empty(ps.layout(), ps.dtype());  // each part written once: copied, or zeros
  pack_into(v, ps, parts);
  return v;
}

void pack_into(ParamVec& v, const ParamSet& ps, std::span<const Tensor> parts) {
  if (static_cast<int32_t>(parts.size()) != ps.count())
    throw ShapeError(fmt::format("pack: {} tensors for {} parameters", parts.size(), ps.count()));
  if (!v.layout()) throw ShapeError("pack: into an empty parameter vector");
  check_layout(*ps.layout(), *v.layout(), "pack");
  for (int32_t i = 0; i < ps.count(); ++i) {
    Tensor dst = v.part(i);
    if (parts[i].defined() && parts[i].raw() == dst.raw() && parts[i].shape() == dst.shape() &&
        parts[i].dtype() == dst.dtype())
      continue;  // evaluated in place (Graph::place)
    if (!parts[i].defined()) {
      dst.fill(0);
      continue;
    }
    if (parts[i].shape() != dst.shape())
      throw ShapeError(fmt::format("pack: {} for parameter {} of shape {}", parts[i].shape().str(),
                                   ps.name(ParamId{i}), dst.shape().str()));
    Tensor src = parts[i].astype(v.dtype());
    std::memcpy(dst.raw(), src.raw(), static_cast<size_t>(src.size()) * dtype_size(src.dtype()));
  }
}

std::vector<Tensor> unpack(const ParamVec& v) {
  std::vector<Tensor> out;
  for (int32_t i = 0; i < static_cast<int32_t>(v.layout()->entries.size()); ++i) out.push_back(v.part(i).clone());
  return out;
}

std::pair<double, ParamVec> value_and_grad(Var loss) {
  Graph& g = *loss.graph();
  if (!g.params()) throw Error("value_and_grad: the loss's graph has no bound ParamSet (g.bind(params))");
  std::vector<Var> leaves = g.param_leaves();
  ParamVec flat = ParamVec::empty(g.params()->layout(), g.params()->dtype());
  std::vector<Tensor> into;
  for (int32_t i = 0; i < g.params()->count(); ++i) into.push_back(flat.part(i));
  std::vector<Var> gs = grad(loss, leaves, into);  // the gradients' kernels write into flat where they can
  std::vector<Tensor> parts;
  for (size_t i = 0; i < leaves.size(); ++i) parts.push_back(value_or_zeros(gs[i], leaves[i].shape(), leaves[i].dtype()));
  pack_into(flat, *g.params(), parts);
  return {loss.value().item(), flat};
}

}  // namespace tg::ad
