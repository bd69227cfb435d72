#include "gradcheck/rbm_specs.h"

#include "models/rbm.h"
#include "models/temporal_rbm.h"
#include "ops/ops.h"

namespace tg::check {

namespace {
using V = std::vector<Var>;
using In = std::span<const Var>;
constexpr int64_t kV = 4, kH = 3, kN = 2;

Var binary_data(Graph& g, int64_t n, int64_t d) {
  Tensor t = Tensor::empty({n, d}, DType::f64);
  for (int64_t i = 0; i < t.size(); ++i) t.data<double>()[i] = (i * 5 + 1) % 3 == 0 ? 1.0 : 0.0;
  return g.input(t);
}
models::rbm::Rbm rbm(In x, bool gaussian = false) {
  return models::rbm::Rbm{.W = x[0], .b = x[1], .c = x[2], .c_dyn = {}, .b_dyn = {}, .gaussian = gaussian, .sigma = 0.8};
}
}  // namespace

const std::vector<RbmSpec>& rbm_specs() {
  namespace r = models::rbm;
  static const std::vector<RbmSpec> specs = {
      {"rbm/free_energy", {{kV, kH}, {kV}, {kH}, {kN, kV}},
       [](Graph&, In x) { return V{r::free_energy(rbm(x), x[3])}; }},
      {"rbm/free_energy_gaussian", {{kV, kH}, {kV}, {kH}, {kN, kV}},
       [](Graph&, In x) { return V{r::free_energy(rbm(x, true), x[3])}; }},
      {"rbm/free_energy_dyn_bias", {{kV, kH}, {kV}, {kH}, {kN, kH}},
       [](Graph& g, In x) {
         r::Rbm m = rbm(x);
         m.c_dyn = x[3];
         return V{r::free_energy(m, binary_data(g, kN, kV))};
       }},
      {"rbm/hidden_probs", {{kV, kH}, {kV}, {kH}, {kN, kV}},
       [](Graph&, In x) { return V{r::hidden_probs(rbm(x), x[3])}; }},
      {"rbm/visible_mean", {{kV, kH}, {kV}, {kH}, {kN, kH}},
       [](Graph&, In x) { return V{r::visible_mean(rbm(x), x[3])}; }},
      {"rbm/visible_mean_gaussian", {{kV, kH}, {kV}, {kH}, {kN, kH}},
       [](Graph&, In x) { return V{r::visible_mean(rbm(x, true), x[3])}; }},
      {"rbm/log_likelihood", {{kV, kH}, {kV}, {kH}},
       [](Graph& g, In x) { return V{r::mean_log_likelihood(rbm(x), binary_data(g, kN, kV))}; }},
      {"rbm/cd_surrogate", {{kV, kH}, {kV}, {kH}},
       [](Graph& g, In x) {
         Var neg = ops::sub(ops::fill(g, {kN, kV}, 1.0, DType::f64), binary_data(g, kN, kV));  // a fixed sample
         return V{r::cd_loss_given(rbm(x), binary_data(g, kN, kV), neg)};
       }},
  };
  return specs;
}

Report check_rbm(const RbmSpec& spec, const Options& opt) {
  return check_fn(spec.fn, random_inputs(spec.shapes, -0.8, 0.8, opt.seed + 11), opt);
}

const std::vector<TemporalRbmSpec>& temporal_rbm_specs() {
  // name, recurrent, taps, links (hh; or hh, vh and vv), thesis_bptt, exact
  auto row = [](std::string name, bool recurrent, int taps, bool all_links, bool thesis_bptt, bool exact) {
    TemporalRbmSpec s;
    s.name = std::move(name);
    s.recurrent = recurrent;
    s.taps = taps;
    s.vh = s.vv = all_links;
    s.thesis_bptt = thesis_bptt;
    s.exact = exact;
    return s;
  };
  static const std::vector<TemporalRbmSpec> specs = {
      row("rtrbm/cd_surrogate", true, 1, false, false, false),
      row("rtrbm/cd_surrogate_thesis_bptt", true, 1, false, true, false),
      row("rtrbm/exact_log_likelihood", true, 1, false, false, true),
      row("trbm/cd_surrogate_taps2", false, 2, true, false, false),
      row("trbm/exact_log_likelihood_taps2", false, 2, true, false, true),
  };
  return specs;
}

Report check_temporal_rbm(const TemporalRbmSpec& spec, const Options& opt) {
  constexpr int64_t T = 3;
  models::TemporalRbmOptions o;
  o.recurrent = spec.recurrent;
  o.visible = kV;
  o.hidden = kH;
  o.taps = spec.taps;
  o.hh = spec.hh, o.vh = spec.vh, o.vv = spec.vv;
  o.thesis_bptt = spec.thesis_bptt;
  Rng rng(3);
  models::TemporalRbm model(o, DType::f64, rng);
  ParamSet& ps = model.params();
  std::vector<Shape> shapes;
  for (int32_t i = 0; i < ps.count(); ++i) shapes.push_back(ps.shape(ParamId{i}));
  // fixed binary frames, and for the surrogate a fixed negative sample per frame
  auto frame = [](Graph& g, int64_t t, int64_t flip) {
    Tensor f = Tensor::empty({kN, kV}, DType::f64);
    for (int64_t i = 0; i < f.size(); ++i) f.data<double>()[i] = ((i * 5 + 3 * t + flip) % 3 == 0) ? 1.0 : 0.0;
    return g.input(f);
  };
  const Fn fn = [&](Graph& g, std::span<const Var> in) {
    g.bind(ps, in);
    std::vector<Var> frames, negatives;
    for (int64_t t = 0; t < T; ++t) frames.push_back(frame(g, t, 0)), negatives.push_back(frame(g, t, 1));
    if (spec.exact) return V{ops::mean(model.exact_log_likelihood(g, frames))};
    const models::rbm::Rbm all = model.stacked_frames(g, frames);
    return V{models::rbm::cd_loss_given(all, ops::concat(frames, 0), ops::concat(negatives, 0))};
  };
  Options o2 = opt;
  o2.finite_differences = spec.recurrent && !spec.thesis_bptt;
  return check_fn(fn, random_inputs(shapes, -0.8, 0.8, opt.seed + 13), o2);
}

}  // namespace tg::check
