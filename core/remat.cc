#include "core/remat.h"

#include <algorithm>
#include <cmath>

#include "core/error.h"
#include "ops/ops.h"

namespace tg::ad {

namespace {
// A value kept beyond its segment's graph: a copy, so that a view does not keep a larger buffer alive.
Tensor keep(Var v) { return v.empty() ? Tensor() : v.value().clone(); }
std::vector<Tensor> keep_all(std::span<const Var> vs) {
  std::vector<Tensor> out;
  for (const Var& v : vs) out.push_back(keep(v));
  return out;
}
Var ones_like(Var v) { return ops::fill(*v.graph(), v.shape(), 1.0, v.dtype()); }
}  // namespace

int64_t sqrt_segments(int64_t steps) {
  return std::max<int64_t>(1, std::llround(std::sqrt(static_cast<double>(std::max<int64_t>(steps, 1)))));
}

std::vector<Var> Remat::Rebuilt::wrt() const {
  std::vector<Var> w = params;
  w.insert(w.end(), state_in.begin(), state_in.end());
  return w;
}

Remat::Remat(const ParamSet& ps, int64_t segments, SegmentBuilder build, GraphOptions options)
    : ps_(&ps), segments_(segments), build_(std::move(build)), options_(options) {
  if (segments_ < 1) throw Error(fmt::format("remat: {} segments (at least 1 is needed)", segments_));
  for (int32_t i = 0; i < ps.count(); ++i) theta_.push_back(ps.value(ParamId{i}).clone());
  boundary_.resize(static_cast<size_t>(segments_));
  for (int64_t s = 0; s < segments_; ++s) {
    Rebuilt r = rebuild(s);
    if (s == 0) at_count_.resize(r.out.blocks.size());
    if (r.out.blocks.size() != at_count_.size())
      throw Error(fmt::format("remat: segment {} has {} curvature blocks, segment 0 has {}", s,
                              r.out.blocks.size(), at_count_.size()));
    for (size_t b = 0; b < at_count_.size(); ++b) at_count_[b].push_back(r.out.blocks[b].at.size());
    if (!r.out.loss.empty()) value_ += r.out.loss.value().item();
    for (const Var& o : r.out.outputs) outputs_.push_back(keep(o));
    if (s + 1 < segments_) boundary_[static_cast<size_t>(s + 1)] = keep_all(r.out.state);
    done(r);
  }
}

Remat::Rebuilt Remat::rebuild(int64_t s) {
  Rebuilt r;
  r.g = std::make_unique<Graph>(options_);
  for (const Tensor& t : theta_) r.params.push_back(r.g->input(t));  // shares the snapshot's buffer
  r.g->bind(*ps_, r.params);
  for (const Tensor& t : boundary_[static_cast<size_t>(s)]) r.state_in.push_back(r.g->input(t));
  r.out = build_(*r.g, s, r.state_in);
  if (s > 0 && r.out.state.size() != r.state_in.size())
    throw Error(fmt::format("remat: segment {} ends with {} state parts and starts with {}", s,
                            r.out.state.size(), r.state_in.size()));
  for (const Block& b : r.out.blocks)
    if (!b.head.empty() && b.head.shape().size() != 1)
      throw ShapeError(fmt::format("remat: segment {}: a block's head must be a scalar", s));
  if (!r.out.loss.empty() && r.out.loss.shape().size() != 1)
    throw ShapeError(fmt::format("remat: segment {}: the loss must be a scalar", s));
  return r;
}

void Remat::done(const Rebuilt& r) {
  max_nodes_ = std::max(max_nodes_, r.g->size());
  max_bytes_ = std::max(max_bytes_, value_bytes(*r.g));
}

int64_t value_bytes(const Graph& g) {
  int64_t bytes = 0;
  for (int32_t id = 0; id < g.size(); ++id)
    if (g.has_value(id)) bytes += g.value(id).size() * static_cast<int64_t>(dtype_size(g.node(id).dtype));
  return bytes;
}

std::vector<Var> Remat::inputs(Rebuilt& r, std::span<const Tensor> values) {
  std::vector<Var> out;
  for (const Tensor& t : values) out.push_back(t.defined() ? r.g->input(t) : Var());
  return out;
}

std::vector<Tensor> Remat::parts(const ParamVec& v) const {
  if (!v.layout()) throw ShapeError("remat: an empty parameter vector");
  check_layout(*ps_->layout(), *v.layout(), "remat");
  std::vector<Tensor> p;
  for (int32_t i = 0; i < ps_->count(); ++i) p.push_back(v.part(i).astype(ps_->dtype()));
  return p;
}

void Remat::accumulate(ParamVec& acc, std::span<const Var> param_derivs) const {
  std::vector<Tensor> p;  // undefined where the derivative is a symbolic zero (pack leaves zeros)
  for (size_t i = 0; i < static_cast<size_t>(ps_->count()); ++i)
    p.push_back(param_derivs[i].empty() ? Tensor() : param_derivs[i].value());
  acc.axpy(1.0, pack(*ps_, p));
}

void Remat::check_block(size_t block) const {
  if (block >= at_count_.size())
    throw Error(fmt::format("remat: block {} requested, the segments have {}", block, at_count_.size()));
}

const ParamVec& Remat::grad() {
  if (grad_) return *grad_;
  ParamVec acc = ps_->zeros_like();
  std::vector<Tensor> lambda;  // cotangent of the state after the current segment
  for (int64_t s = segments_ - 1; s >= 0; --s) {
    Rebuilt r = rebuild(s);
    std::vector<Seed> seeds;
    if (!r.out.loss.empty()) seeds.push_back({r.out.loss, ones_like(r.out.loss)});
    std::vector<Var> lam = inputs(r, lambda);
    for (size_t i = 0; i < lam.size(); ++i)
      if (!lam[i].empty()) seeds.push_back({r.out.state[i], lam[i]});
    std::vector<Var> wrt = r.wrt();
    std::vector<Var> c = ad::vjp(seeds, wrt);
    accumulate(acc, c);
    lambda = keep_all(std::span<const Var>(c).subspan(r.params.size()));
    done(r);
  }
  grad_ = std::move(acc);
  return *grad_;
}

ParamVec Remat::vjp(size_t block, std::span<const Tensor> u) {
  check_block(block);
  size_t total = 0;
  for (size_t n : at_count_[block]) total += n;
  if (u.size() != total)
    throw ShapeError(fmt::format("remat: vjp with {} cotangents for {} block nodes", u.size(), total));
  ParamVec acc = ps_->zeros_like();
  std::vector<Tensor> lambda;
  size_t end = total;
  for (int64_t s = segments_ - 1; s >= 0; --s) {
    Rebuilt r = rebuild(s);
    const std::vector<Var>& at = r.out.blocks[block].at;
    const size_t first = end - at.size();
    std::vector<Seed> seeds;
    for (size_t i = 0; i < at.size(); ++i) {
      const Tensor& ui = u[first + i];
      if (!ui.defined()) continue;
      if (ui.shape() != at[i].shape())
        throw ShapeError(fmt::format("remat: vjp cotangent {} for a block node {}", ui.shape().str(),
                                     at[i].shape().str()));
      seeds.push_back({at[i], r.g->input(ui.astype(at[i].dtype()))});
    }
    std::vector<Var> lam = inputs(r, lambda);
    for (size_t i = 0; i < lam.size(); ++i)
      if (!lam[i].empty()) seeds.push_back({r.out.state[i], lam[i]});
    std::vector<Var> c = ad::vjp(seeds, r.wrt());
    accumulate(acc, c);
    lambda = keep_all(std::span<const Var>(c).subspan(r.params.size()));
    end = first;
    done(r);
  }
  return acc;
}

std::vector<std::vector<Tensor>> Remat::state_tangents(const ParamVec& v) {
  const std::vector<Tensor> vp = parts(v);
  std::vector<std::vector<Tensor>> tdot(static_cast<size_t>(segments_));
  for (int64_t s = 0; s + 1 < segments_; ++s) {
    Rebuilt r = rebuild(s);
    std::vector<Var> tangents = inputs(r, vp);
    std::vector<Var> st = inputs(r, tdot[static_cast<size_t>(s)]);
    tangents.insert(tangents.end(), st.begin(), st.end());
    tdot[static_cast<size_t>(s + 1)] = keep_all(ad::jvp(r.out.state, r.wrt(), tangents));
    done(r);
  }
  return tdot;
}

std::vector<Tensor> Remat::jvp(const ParamVec& v, size_t block) {
  check_block(block);
  const std::vector<Tensor> vp = parts(v);
  std::vector<Tensor> out, tdot;
  for (int64_t s = 0; s < segments_; ++s) {
    Rebuilt r = rebuild(s);
    std::vector<Var> tangents = inputs(r, vp);
    std::vector<Var> st = inputs(r, tdot);
    tangents.insert(tangents.end(), st.begin(), st.end());
    const std::vector<Var>& at = r.out.blocks[block].at;
    std::vector<Var> targets = at;
    targets.insert(targets.end(), r.out.state.begin(), r.out.state.end());
    std::vector<Var> t = ad::jvp(targets, r.wrt(), tangents);
    for (size_t i = 0; i < at.size(); ++i) out.push_back(value_or_zeros(t[i], at[i].shape(), at[i].dtype()).clone());
    tdot = keep_all(std::span<const Var>(t).subspan(at.size()));
    done(r);
  }
  return out;
}

// G v = Σ_s J_sᵀ H_s J_s v: segment s's J v needs the tangent of its start state (forward sweep first),
// and its VJP needs the cotangent of its end state (so the products run in a reverse sweep).
ParamVec Remat::gnvp(const ParamVec& v, size_t block) {
  check_block(block);
  const std::vector<Tensor> vp = parts(v);
  const std::vector<std::vector<Tensor>> tdot = state_tangents(v);
  ParamVec acc = ps_->zeros_like();
  std::vector<Tensor> lambda;
  for (int64_t s = segments_ - 1; s >= 0; --s) {
    Rebuilt r = rebuild(s);
    std::vector<Var> wrt = r.wrt();
    std::vector<Var> tangents = inputs(r, vp);
    std::vector<Var> st = inputs(r, tdot[static_cast<size_t>(s)]);
    tangents.insert(tangents.end(), st.begin(), st.end());
    const Block& b = r.out.blocks[block];
    std::vector<Seed> seeds;
    if (!b.head.empty() && !b.at.empty()) {
      std::vector<Var> jv = ad::jvp(b.at, wrt, tangents);
      Seed one{b.head, ones_like(b.head)};
      std::vector<Var> head_grad = ad::vjp(std::span<const Seed>(&one, 1), b.at, /*independent=*/true);
      std::vector<Var> hjv = ad::jvp(head_grad, b.at, jv);
      for (size_t i = 0; i < b.at.size(); ++i)
        if (!hjv[i].empty()) seeds.push_back({b.at[i], hjv[i]});
    }
    std::vector<Var> lam = inputs(r, lambda);
    for (size_t i = 0; i < lam.size(); ++i)
      if (!lam[i].empty()) seeds.push_back({r.out.state[i], lam[i]});
    std::vector<Var> c = ad::vjp(seeds, wrt);
    accumulate(acc, c);
    lambda = keep_all(std::span<const Var>(c).subspan(r.params.size()));
    done(r);
  }
  return acc;
}

// H v: the gradient's reverse sweep (loss and end-state cotangent λ → parameter and start-state
// cotangents), differentiated forward along (v, start-state tangent, λ's tangent) segment by segment.
ParamVec Remat::hvp(const ParamVec& v) {
  const std::vector<Tensor> vp = parts(v);
  const std::vector<std::vector<Tensor>> tdot = state_tangents(v);
  ParamVec acc = ps_->zeros_like();
  std::vector<Tensor> lambda, lambda_dot;
  for (int64_t s = segments_ - 1; s >= 0; --s) {
    Rebuilt r = rebuild(s);
    std::vector<Var> wrt = r.wrt();
    std::vector<Seed> seeds;
    if (!r.out.loss.empty()) seeds.push_back({r.out.loss, ones_like(r.out.loss)});
    std::vector<Var> lam = inputs(r, lambda);
    for (size_t i = 0; i < lam.size(); ++i)
      if (!lam[i].empty()) seeds.push_back({r.out.state[i], lam[i]});
    std::vector<Var> c = ad::vjp(seeds, wrt);
    // tangents of (θ, start state, λ)
    std::vector<Var> ins = wrt, tangents = inputs(r, vp);
    std::vector<Var> st = inputs(r, tdot[static_cast<size_t>(s)]);
    tangents.insert(tangents.end(), st.begin(), st.end());
    std::vector<Var> lam_dot = inputs(r, lambda_dot);
    for (size_t i = 0; i < lam.size(); ++i) {
      if (lam[i].empty()) continue;
      ins.push_back(lam[i]);
      tangents.push_back(i < lam_dot.size() ? lam_dot[i] : Var());
    }
    std::vector<Var> outs, hc(c.size());
    std::vector<size_t> where;
    for (size_t i = 0; i < c.size(); ++i)
      if (!c[i].empty()) {
        outs.push_back(c[i]);
        where.push_back(i);
      }
    std::vector<Var> d = ad::jvp(outs, ins, tangents);
    for (size_t k = 0; k < where.size(); ++k) hc[where[k]] = d[k];
    accumulate(acc, hc);
    lambda = keep_all(std::span<const Var>(c).subspan(r.params.size()));
    lambda_dot = keep_all(std::span<const Var>(hc).subspan(r.params.size()));
    done(r);
  }
  return acc;
}

}  // namespace tg::ad
