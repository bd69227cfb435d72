#include "gradcheck/gated_specs.h"

#include <fmt/format.h>

#include <cmath>
#include <optional>
#include <span>

#include "models/gating_pyramid_objective.h"
#include "ops/ops.h"

namespace tg::check {

namespace {
constexpr int64_t kRows = 2, kFrame = 4, kCond = 2, kSteps = 5;  // a batch of 2 sequences of 6 frames of 4

const std::vector<GatedSpec>& rows() {
  static const std::vector<GatedSpec> r = {
      {.name = "fgae", .kind = "fgae", .layers = 1, .stage = 1},
      {.name = "fgae/no_biases", .kind = "fgae", .layers = 1, .stage = 1, .biases = false},
      {.name = "pair_ae", .kind = "pair_ae", .layers = 0, .stage = 1},
      {.name = "pgp/1", .kind = "pgp", .layers = 1, .stage = 0},
      {.name = "pgp/2", .kind = "pgp", .layers = 2, .stage = 0},
      {.name = "pgp/3", .kind = "pgp", .layers = 3, .stage = 0},
      {.name = "pgp/3 pretrain l2", .kind = "pgp", .layers = 3, .stage = 2},
      {.name = "cpgp/add", .kind = "cpgp", .layers = 3, .stage = 0, .cond_mode = "add"},
      {.name = "cpgp/preact", .kind = "cpgp", .layers = 3, .stage = 0, .cond_mode = "preact"},
  };
  return r;
}

// Whether the row's loss trains parameter `name`: a layer pre-trained as an autoencoder sees the layers
// below as constants (stop_gradient), so its row checks the derivatives in its own parameters only.
bool trained(const GatedSpec& s, const std::string& name) {
  return s.kind != "pgp" || s.stage == 0 || name.find(fmt::format("/l{}/", s.stage)) != std::string::npos;
}

int64_t cond_of(const GatedSpec& s) { return s.kind == "cpgp" ? kCond : 0; }
int64_t seed_of(const GatedSpec& s) { return s.kind == "pgp" || s.kind == "cpgp" ? s.layers + 1 : 1; }

// Fixed, asymmetric draws: data, not inputs of the checked functions.
Tensor draws(int64_t rows, int64_t cols, double offset) {
  std::vector<double> v(static_cast<size_t>(rows * cols));
  for (size_t i = 0; i < v.size(); ++i) v[i] = 0.8 * std::sin(1.7 * static_cast<double>(i) + offset);
  return Tensor::from({rows, cols}, v, DType::f64);
}

// The row's objective with parameters drawn uniform in [-0.6, 0.6] (biases included, so they matter).
std::unique_ptr<models::GatedObjective> objective_of(const GatedSpec& s) {
  Rng rng(11);
  std::unique_ptr<models::GatedObjective> obj;
  if (s.kind == "pair_ae") {
    obj = std::make_unique<models::GatedObjective>(
        models::PairAutoencoder({.frame = kFrame, .hidden = 3, .init_scale = 1.0, .corruption = 0.0}, DType::f64, rng));
  } else {
    models::GatingPyramidOptions o;
    o.kind = s.kind;
    o.frame = kFrame;
    o.cond = cond_of(s);
    o.factors.assign(static_cast<size_t>(s.layers), 3);
    o.mappings.assign(static_cast<size_t>(s.layers), 3);
    o.biases = s.biases;
    o.corruption = 0;
    o.pretrain_steps = s.stage > 0 ? 1 : 0;
    o.cond_mode = s.cond_mode;
    obj = std::make_unique<models::GatedObjective>(models::GatingPyramid(o, DType::f64, rng));
  }
  if (s.stage > 0) obj->at_iteration(s.stage - 1);
  return obj;
}

// A next-frame batch of the row's layout: frames, conditioning columns, the seed's steps unscored.
tasks::Batch batch_of(const GatedSpec& s) {
  tasks::Batch b;
  b.inputs.T = kSteps, b.inputs.B = kRows;
  const int64_t seed = seed_of(s), cond = cond_of(s);
  std::vector<Tensor> frames;
  for (int64_t t = 0; t <= kSteps; ++t) frames.push_back(draws(kRows, kFrame, 0.9 * static_cast<double>(t)));
  for (int64_t t = 0; t < kSteps; ++t) {
    std::vector<double> in;
    const Tensor c = draws(kRows, cond, 4.0 + static_cast<double>(t));
    for (int64_t r = 0; r < kRows; ++r) {
      for (int64_t i = 0; i < kFrame; ++i) in.push_back(frames[t].at(r * kFrame + i));
      for (int64_t i = 0; i < cond; ++i) in.push_back(std::abs(c.at(r * cond + i)));
    }
    b.inputs.dense.push_back(Tensor::from({kRows, kFrame + cond}, in, DType::f64));
    b.targets.dense.push_back(frames[t + 1]);
    b.targets.mask.push_back(Tensor::full({kRows}, t + 1 >= seed ? 1.0 : 0.0, DType::f64));
  }
  return b;
}
}  // namespace

const std::vector<GatedSpec>& gated_specs() { return rows(); }

Report check_gated(const GatedSpec& spec, const Options& opt) {
  const auto obj = objective_of(spec);
  const ParamSet& ps = obj->params();
  const tasks::Batch b = batch_of(spec);
  std::vector<Tensor> inputs;
  for (int32_t i = 0; i < ps.count(); ++i)
    if (trained(spec, ps.name(ParamId{i}))) inputs.push_back(ps.value(ParamId{i}).clone());
  // the objective's own graph at the row's stage: its loss, the first and last output it scores
  const Fn f = [&](Graph& g, std::span<const Var> in) {
    std::vector<Var> leaves;
    size_t next = 0;
    for (int32_t i = 0; i < ps.count(); ++i)
      leaves.push_back(trained(spec, ps.name(ParamId{i})) ? in[next++] : g.input(ps.value(ParamId{i}).clone()));
    g.bind(ps, std::span<const Var>(leaves));
    const optim::Built built = obj->build(g, b);
    const int64_t first = seed_of(spec) - 1;
    return std::vector<Var>{built.loss, built.outputs.at(static_cast<size_t>(first)), built.outputs.back()};
  };
  return check_fn(f, inputs, opt);
}

namespace {
// The values of the nodes the row's loss squares (its curvature block), flattened, at θ.
std::vector<double> block_values(models::GatedObjective& obj, const ParamVec& theta, const tasks::Batch& b) {
  auto ev = obj.evaluate(theta, b);
  std::vector<double> v;
  for (const Var& z : ev->built().curvature.at)
    for (int64_t i = 0; i < z.value().size(); ++i) v.push_back(z.value().at(i));
  return v;
}
}  // namespace

Report check_gated_gauss_newton(const GatedSpec& spec) {
  Report r;
  try {
    const auto obj = objective_of(spec);
    const tasks::Batch b = batch_of(spec);
    const ParamVec theta = obj->params().values().clone();
    Rng rng(3);
    ParamVec v = ParamVec::random_normal(obj->params().layout(), DType::f64, rng);
    const ParamSet& ps = obj->params();
    for (int32_t i = 0; i < ps.count(); ++i)  // directions in the trained parameters only (above)
      if (!trained(spec, ps.name(ParamId{i}))) v.part(i).fill(0.0);
    const std::vector<double> engine = obj->evaluate(theta, b)->gnvp(v).flat().to_vector();
    // H = I / c: every loss is ½ Σ (output - target)² over c numbers (models/gating_pyramid_objective.h)
    const double scored = static_cast<double>((kSteps + 1 - seed_of(spec)) * kRows * kFrame);
    double c = 0;
    if (spec.stage == 0) {
      c = scored;
    } else {  // the layer's inputs: frames, or mappings of the layer below (3 units, one fewer per layer)
      const int64_t width = spec.stage == 1 ? kFrame : 3, pairs = kSteps - (spec.stage - 1);
      c = 2.0 * static_cast<double>(pairs * kRows * width);
    }
    std::vector<bool> varies;  // per flat entry: whether the row's loss trains it
    for (int32_t p = 0; p < ps.count(); ++p)
      varies.insert(varies.end(), static_cast<size_t>(ps.shape(ParamId{p}).size()), trained(spec, ps.name(ParamId{p})));
    r = check_gauss_newton_product(
        engine, [&](const ParamVec& at) { return block_values(*obj, at, b); }, theta, v,
        [c](const std::vector<double>&, const std::vector<double>& jv) {
          std::vector<double> u = jv;
          for (double& x : u) x /= c;
          return u;
        },
        varies);
  } catch (const std::exception& e) {
    r.ok = false;
    r.failure = std::string("exception: ") + e.what();
  }
  return r;
}

}  // namespace tg::check
