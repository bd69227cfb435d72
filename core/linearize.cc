#include "core/linearize.h"

#include <functional>

#include "core/error.h"
#include "ops/ops.h"

namespace tg::ad {

Segment::Segment(Graph& g, int32_t begin, std::vector<Var> placeholders, std::vector<Var> outputs,
                 std::vector<Shape> output_shapes)
    : g_(&g), ph_(std::move(placeholders)), out_(std::move(outputs)), out_shapes_(std::move(output_shapes)) {
  std::vector<char> own(static_cast<size_t>(g.size()), 0);
  for (const Var& p : ph_) own[p.id()] = 1;
  // Only nodes the outputs depend on run: transforms leave dead nodes behind (a vjp's regrouped
  // cotangent contributions), and a call must not pay for them.
  std::vector<char> live(static_cast<size_t>(g.size() - begin), 0);
  for (const Var& o : out_)
    if (!o.empty() && o.id() >= begin) live[o.id() - begin] = 1;
  for (int32_t id = g.size() - 1; id >= begin; --id) {
    if (!live[id - begin]) continue;
    for (int32_t in : g.node(id).in)
      if (in >= begin) live[in - begin] = 1;
  }
  for (int32_t id = begin; id < g.size(); ++id) {
    const Node& n = g.node(id);
    if (!n.dynamic || n.prim->arity == 0 || !live[id - begin]) continue;
    // a dynamic input must come from this segment: another segment's placeholders would be stale here
    for (int32_t in : n.in)
      TG_ASSERT(!g.node(in).dynamic || in >= begin || own[in], "segment reads a foreign dynamic node: {}",
                g.describe(id));
    dyn_.push_back(id);
  }
}

std::vector<Tensor> Segment::run(std::span<const Tensor> inputs) {
  if (inputs.size() != ph_.size())
    throw ShapeError(fmt::format("linearization: {} inputs given, {} expected", inputs.size(), ph_.size()));
  for (size_t i = 0; i < ph_.size(); ++i) {
    Tensor t = inputs[i].defined() ? inputs[i].astype(ph_[i].dtype()) : Tensor::zeros(ph_[i].shape(), ph_[i].dtype());
    g_->set_value(ph_[i], std::move(t));
  }
  for (int32_t id : dyn_) g_->eval(id);
  std::vector<Tensor> out;
  out.reserve(out_.size());
  for (size_t i = 0; i < out_.size(); ++i)
    out.push_back(out_[i].empty() ? Tensor::zeros(out_shapes_[i], ph_.empty() ? DType::f64 : ph_[0].dtype())
                                  : out_[i].value());
  return out;
}

Linearization::Linearization(std::vector<Var> wrt, Var loss) : wrt_(std::move(wrt)), loss_(loss) {
  if (loss.empty()) throw Error("linearize: empty loss");
  if (loss.shape().size() != 1)
    throw ShapeError(fmt::format("linearize: loss must be a scalar, got {}", loss.shape().str()));
  primal_end_ = graph().size();
  for (int32_t id = 0; id < primal_end_; ++id) primal_evals_at_start_ += graph().eval_count(id);
}

Linearization::Linearization(Var loss) : Linearization(loss.graph()->param_leaves(), loss) {
  if (!loss.graph()->params()) throw Error("linearize: the loss's graph has no bound ParamSet (g.bind(params))");
  over_params_ = true;
}

uint64_t Linearization::primal_reevaluations() const {
  uint64_t n = 0;
  for (int32_t id = 0; id < primal_end_; ++id) n += loss_.graph()->eval_count(id);
  return n - primal_evals_at_start_;
}

Segment& Linearization::segment(const std::string& key, const std::function<Segment()>& build) {
  auto it = segments_.find(key);
  if (it == segments_.end()) it = segments_.emplace(key, std::make_unique<Segment>(build())).first;
  return *it->second;
}

std::vector<Var> Linearization::make_placeholders(const std::vector<Var>& like) {
  std::vector<Var> ph;
  for (const Var& v : like) ph.push_back(graph().placeholder(v.shape(), v.dtype()));
  return ph;
}

namespace {
std::string ids(const std::vector<Var>& vs) {
  std::string s;
  for (const Var& v : vs) s += std::to_string(v.id()) + ",";
  return s;
}
std::vector<Shape> shapes(const std::vector<Var>& vs) {
  std::vector<Shape> s;
  for (const Var& v : vs) s.push_back(v.shape());
  return s;
}
}  // namespace

const std::vector<Tensor>& Linearization::grad() {
  if (grad_vars_.empty()) {  // built in locals: an exception leaves nothing half-made behind
    std::vector<Tensor> into;
    ParamVec flat;
    if (over_params_) {  // the weight gradients' products write straight into the flat vector grad_vec returns
      const ParamSet& ps = *graph().params();
      flat = ParamVec::empty(ps.layout(), ps.dtype());
      for (int32_t i = 0; i < ps.count(); ++i) into.push_back(flat.part(i));
    }
    std::vector<Var> vars = ad::grad(loss_, wrt_, into);
    std::vector<Tensor> parts;
    for (size_t i = 0; i < wrt_.size(); ++i) parts.push_back(value_or_zeros(vars[i], wrt_[i].shape(), wrt_[i].dtype()));
    if (over_params_) ad::pack_into(flat, *graph().params(), parts);
    grad_flat_ = std::move(flat);
    grad_ = std::move(parts);
    grad_vars_ = std::move(vars);
  }
  return grad_;
}

std::vector<Tensor> Linearization::jvp(std::span<const Tensor> v, const std::vector<Var>& at) {
  Segment& s = segment("jvp:" + ids(at), [&] {
    int32_t begin = graph().size();
    std::vector<Var> ph = make_placeholders(wrt_);
    std::vector<Var> t = ad::jvp(at, wrt_, ph);
    return Segment(graph(), begin, ph, t, shapes(at));
  });
  return s.run(v);
}

std::vector<Tensor> Linearization::vjp(const std::vector<Var>& at, std::span<const Tensor> u,
                                       const std::vector<Var>& read) {
  Segment& s = segment("vjp:" + ids(at) + "|" + ids(read), [&] {
    int32_t begin = graph().size();
    std::vector<Var> ph = make_placeholders(at);
    std::vector<Seed> seeds;
    for (size_t i = 0; i < at.size(); ++i) seeds.push_back({at[i], ph[i]});
    std::vector<Var> targets = wrt_;
    targets.insert(targets.end(), read.begin(), read.end());
    std::vector<Var> c = ad::vjp(seeds, targets);
    return Segment(graph(), begin, ph, c, shapes(targets));
  });
  return s.run(u);
}

std::vector<Tensor> Linearization::hvp(std::span<const Tensor> v) {
  grad();  // the gradient graph is built (and evaluated) once, outside the segment's dynamic part
  Segment& s = segment("hvp", [&] {
    int32_t begin = graph().size();
    std::vector<Var> ph = make_placeholders(wrt_);
    std::vector<Var> hv = ad::jvp(grad_vars_, wrt_, ph);
    return Segment(graph(), begin, ph, hv, shapes(wrt_));
  });
  return s.run(v);
}

// G v = J_atᵀ H J_at v, H = d² head / d at²: forward sweep to `at`, forward-over-reverse through the head
// only (the head's gradient graph, differentiated once more along J v), reverse sweep from `at`.
std::vector<Tensor> Linearization::gnvp(std::span<const Tensor> v, const Block& block) {
  if (block.head.empty() || block.head.shape().size() != 1) throw ShapeError("gnvp: a block's head must be a scalar node");
  Segment& s = segment("gn:" + ids(block.at) + "|" + std::to_string(block.head.id()), [&] {
    int32_t begin = graph().size();
    std::vector<Var> ph = make_placeholders(wrt_);
    std::vector<Var> jv = ad::jvp(block.at, wrt_, ph);
    // the head's gradient with the block's nodes as independent variables (known: evaluated once, here)
    Seed one{block.head, ops::fill(graph(), block.head.shape(), 1.0, block.head.dtype())};
    std::vector<Var> head_grad = ad::vjp(std::span<const Seed>(&one, 1), block.at, /*independent=*/true);
    std::vector<Var> hjv = ad::jvp(head_grad, block.at, jv);
    std::vector<Seed> seeds;
    for (size_t i = 0; i < block.at.size(); ++i) seeds.push_back({block.at[i], hjv[i]});
    std::vector<Var> c = ad::vjp(seeds, wrt_);
    return Segment(graph(), begin, ph, c, shapes(wrt_));
  });
  return s.run(v);
}

std::vector<Tensor> Linearization::gnvp(std::span<const Tensor> v, std::span<const Block> blocks,
                                        std::span<const double> weights) {
  if (blocks.empty() || blocks.size() != weights.size())
    throw Error(fmt::format("gnvp: {} blocks with {} weights", blocks.size(), weights.size()));
  std::string key = "gn*";
  for (const Block& b : blocks) {
    if (b.head.empty() || b.head.shape().size() != 1) throw ShapeError("gnvp: a block's head must be a scalar node");
    key += ids(b.at) + "|" + std::to_string(b.head.id()) + ";";
  }
  Segment& s = segment(key, [&] {
    int32_t begin = graph().size();
    std::vector<Var> ph = make_placeholders(wrt_);
    std::vector<Var> all_at;
    for (const Block& b : blocks) all_at.insert(all_at.end(), b.at.begin(), b.at.end());
    std::vector<Var> jv = ad::jvp(all_at, wrt_, ph);  // one forward sweep serves every block
    std::vector<Seed> seeds;
    size_t first = 0;
    for (const Block& b : blocks) {
      Var w = graph().placeholder(b.head.shape(), b.head.dtype());
      ph.push_back(w);
      Seed one{b.head, ops::fill(graph(), b.head.shape(), 1.0, b.head.dtype())};
      std::vector<Var> head_grad = ad::vjp(std::span<const Seed>(&one, 1), b.at, /*independent=*/true);
      std::vector<Var> hjv = ad::jvp(head_grad, b.at, std::vector<Var>(jv.begin() + first, jv.begin() + first + b.at.size()));
      for (size_t i = 0; i < b.at.size(); ++i)
        if (!hjv[i].empty()) seeds.push_back({b.at[i], ops::mul(hjv[i], w)});
      first += b.at.size();
    }
    std::vector<Var> c = ad::vjp(seeds, wrt_);  // and one reverse sweep
    return Segment(graph(), begin, ph, c, shapes(wrt_));
  });
  std::vector<Tensor> in(v.begin(), v.end());
  for (size_t k = 0; k < blocks.size(); ++k)
    in.push_back(Tensor::full(blocks[k].head.shape(), weights[k], blocks[k].head.dtype()));
  return s.run(in);
}

std::vector<Tensor> Linearization::to_parts(const ParamVec& v) const {
  const ParamSet* ps = loss_.graph()->params();
  if (!ps || wrt_.size() != static_cast<size_t>(ps->count()))
    throw Error("linearize: ParamVec products need a Linearization built over the graph's bound ParamSet");
  if (!v.layout()) throw ShapeError("linearize: an empty parameter vector");
  check_layout(*ps->layout(), *v.layout(), "linearize");
  std::vector<Tensor> parts;
  for (int32_t i = 0; i < ps->count(); ++i) parts.push_back(v.part(i));
  return parts;
}

ParamVec Linearization::to_vec(const std::vector<Tensor>& parts) const {
  return pack(*loss_.graph()->params(), parts);
}

ParamVec Linearization::grad_vec() {
  if (over_params_) {
    grad();
    return grad_flat_;  // shares its buffer with the gradient nodes' values, as Evaluation::grad's cache
  }
  return to_vec(grad());
}
ParamVec Linearization::hvp(const ParamVec& v) { return to_vec(hvp(to_parts(v))); }
ParamVec Linearization::gnvp(const ParamVec& v, const Block& block) { return to_vec(gnvp(to_parts(v), block)); }
ParamVec Linearization::gnvp(const ParamVec& v, std::span<const Block> blocks, std::span<const double> weights) {
  return to_vec(gnvp(to_parts(v), blocks, weights));
}

}  // namespace tg::ad
