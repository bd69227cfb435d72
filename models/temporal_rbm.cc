#include "models/temporal_rbm.h"

#include <fmt/format.h>

#include <cstdint>

#include "core/error.h"
#include "ops/ops.h"
#include "ops/sample.h"

namespace tg::models {

struct TemporalRbm::Past {
  std::vector<Var> v, p;  // the frames and hidden states so far, oldest first (the last m are read)
  int64_t n = 0;          // sequences
};

TemporalRbm::TemporalRbm(const TemporalRbmOptions& o, DType dt, Rng& rng) : opt_(o), ps_(dt) {
  if (o.visible < 1 || o.hidden < 1)
    throw Error(fmt::format("temporal RBM: visible ({}) and hidden ({}) units must be at least 1", o.visible, o.hidden));
  if (o.taps < 1) throw Error(fmt::format("temporal RBM: taps must be at least 1 (got {})", o.taps));
  if (o.recurrent && (o.taps != 1 || o.vh || o.vv || !o.hh))
    throw Error("rtrbm: the RTRBM has one tap and hidden-to-hidden links only (links \"hh\", taps 1)");
  if (o.cd_k < 1 || o.cd_k_late < 1 || o.predict_gibbs < 1)
    throw Error(fmt::format("temporal RBM: cd_k ({}), cd_k_late ({}) and predict_gibbs ({}) must be at least 1",
                            o.cd_k, o.cd_k_late, o.predict_gibbs));
  if (o.thesis_bptt && !o.recurrent) throw Error("trbm: thesis_bptt is about the RTRBM's BPTT (the TRBM has none)");
  const int64_t V = o.visible, H = o.hidden;
  W_ = ps_.add("W", {V, H}, init::normal(o.weight_scale), &rng);
  b_v_ = ps_.add("b_v", {V}, init::normal(o.init_scale), &rng);
  b_h_ = ps_.add("b_h", {H}, init::normal(o.init_scale), &rng);
  if (o.hh) p_init_ = ps_.add("p_init", {H}, init::normal(o.init_scale), &rng);
  if (o.vh || o.vv) v_init_ = ps_.add("v_init", {V}, init::normal(o.init_scale), &rng);
  for (int n = 1; n <= o.taps; ++n) {
    if (o.hh) w_hh_.push_back(ps_.add(fmt::format("W_hh{}", n), {H, H}, init::normal(o.init_scale), &rng));
    if (o.vh) w_vh_.push_back(ps_.add(fmt::format("W_vh{}", n), {V, H}, init::normal(o.init_scale), &rng));
    if (o.vv) a_vv_.push_back(ps_.add(fmt::format("A_vv{}", n), {V, V}, init::normal(o.init_scale), &rng));
  }
}

rbm::Rbm TemporalRbm::frame_rbm(Graph& g, const Past& past, bool stop_w_prime) const {
  rbm::Rbm m = rbm::bind(g, {W_, b_v_, b_h_});
  auto accumulate = [](Var& sum, Var term) { sum = sum.empty() ? term : ops::add(sum, term); };
  for (int n = 1; n <= opt_.taps; ++n) {
    const int64_t i = static_cast<int64_t>(past.v.size()) - n;  // frame t - n, or before the first
    if (opt_.hh) {
      Var p = i >= 0 ? past.p[i] : ops::broadcast_to(g[p_init_], {past.n, opt_.hidden});
      Var w = g[w_hh_[n - 1]];
      accumulate(m.c_dyn, ops::matmul(p, stop_w_prime ? ops::stop_gradient(w) : w));
    }
    if (opt_.vh || opt_.vv) {
      Var v = i >= 0 ? past.v[i] : ops::broadcast_to(g[v_init_], {past.n, opt_.visible});
      if (opt_.vh) accumulate(m.c_dyn, ops::matmul(v, g[w_vh_[n - 1]]));
      if (opt_.vv) accumulate(m.b_dyn, ops::matmul(v, g[a_vv_[n - 1]]));
    }
  }
  return m;
}

namespace {
void check_frames(const std::vector<Var>& frames, int64_t visible, const char* who) {
  if (frames.empty()) throw Error(fmt::format("temporal RBM {}: no frames", who));
  for (size_t t = 0; t < frames.size(); ++t)
    if (frames[t].shape().rank() != 2 || frames[t].shape()[1] != visible || frames[t].shape()[0] != frames[0].shape()[0])
      throw ShapeError(fmt::format("temporal RBM {}: frame {} is {}, want [{}, {}]", who, t, frames[t].shape().str(),
                                   frames[0].shape()[0], visible));
}

// Stacks per-frame [N, ·] rows into [T·N, ·] (empty stays empty: a link the model does not have).
Var stack(const std::vector<Var>& rows) {
  if (rows.empty() || rows[0].empty()) return {};
  return rows.size() == 1 ? rows[0] : ops::concat(rows, 0);
}
}  // namespace

rbm::Rbm TemporalRbm::stacked_frames(Graph& g, const std::vector<Var>& frames) const {
  check_frames(frames, opt_.visible, "stacked_frames");
  Past past;
  past.n = frames[0].shape()[0];
  std::vector<Var> c_rows, b_rows;
  for (const Var& v : frames) {
    const rbm::Rbm frame = frame_rbm(g, past, false);
    // the frame's hidden state: the RTRBM's r_t (BPTT flows through it), the TRBM's filtering estimate
    // (a constant to the gradient, rules 3.7-3.10)
    Var p = rbm::hidden_probs(frame, v);
    if (!opt_.recurrent) p = ops::stop_gradient(p);
    c_rows.push_back(opt_.thesis_bptt ? frame_rbm(g, past, true).c_dyn : frame.c_dyn);
    b_rows.push_back(frame.b_dyn);
    past.v.push_back(v);
    past.p.push_back(p);
  }
  rbm::Rbm all = rbm::bind(g, {W_, b_v_, b_h_});
  all.c_dyn = stack(c_rows);
  all.b_dyn = stack(b_rows);
  return all;
}

Var TemporalRbm::cd_loss(Graph& g, const std::vector<Var>& frames, int k, Rng& rng) const {
  const rbm::Rbm all = stacked_frames(g, frames);
  return rbm::cd_loss(all, frames.size() == 1 ? frames[0] : ops::concat(frames, 0), k, rng);
}

std::vector<Var> TemporalRbm::predict(Graph& g, const std::vector<Var>& frames, int gibbs, Rng& rng) const {
  check_frames(frames, opt_.visible, "predict");
  const int64_t T = static_cast<int64_t>(frames.size()), N = frames[0].shape()[0];
  if (T < 2) return {};
  // frames 2..T: their RBMs are rows N.. of the stacked RBM of all frames; the chains start at 1..T-1
  std::vector<Var> data;
  for (const Var& f : frames) data.push_back(ops::stop_gradient(f));
  rbm::Rbm all = stacked_frames(g, data);
  auto rows = [&](Var x, int64_t first) { return x.empty() ? x : ops::slice(x, 0, first, first + (T - 1) * N); };
  rbm::Rbm next = all;
  next.c_dyn = rows(all.c_dyn, N);
  next.b_dyn = rows(all.b_dyn, N);
  Var start = ops::concat(std::vector<Var>(data.begin(), data.end() - 1), 0);
  const rbm::ChainEnd end = rbm::run_chain(next, start.value(), gibbs, rng, /*last_visible=*/false);
  Var logits = ops::stop_gradient(rbm::visible_input(next, g.input(end.h)));
  std::vector<Var> out;
  for (int64_t t = 0; t + 1 < T; ++t) out.push_back(ops::slice(logits, 0, t * N, (t + 1) * N));
  return out;
}

std::vector<Var> TemporalRbm::denoise(Graph& g, const std::vector<Var>& frames) const {
  const rbm::Rbm all = stacked_frames(g, frames);
  const int64_t T = static_cast<int64_t>(frames.size()), N = frames[0].shape()[0];
  Var v = T == 1 ? frames[0] : ops::concat(frames, 0);
  Var clean = ops::stop_gradient(rbm::visible_mean(all, rbm::hidden_probs(all, v)));
  std::vector<Var> out;
  for (int64_t t = 0; t < T; ++t) out.push_back(ops::slice(clean, 0, t * N, (t + 1) * N));
  return out;
}

Var TemporalRbm::exact_log_likelihood(Graph& g, const std::vector<Var>& frames) const {
  const rbm::Rbm all = stacked_frames(g, frames);
  const int64_t T = static_cast<int64_t>(frames.size()), N = frames[0].shape()[0];
  Var rows = rbm::row_log_likelihood(all, T == 1 ? frames[0] : ops::concat(frames, 0));
  return ops::sum(ops::reshape(rows, {T, N}), 0);
}

std::vector<Tensor> TemporalRbm::generate(const std::vector<Tensor>& prefix, int64_t count, int64_t n, int gibbs,
                                          Rng& rng) const {
  if (gibbs < 1) throw Error(fmt::format("temporal RBM generate: gibbs must be at least 1 (got {})", gibbs));
  // One small graph per frame: the past enters as inputs, so the tape never holds the whole video.
  std::vector<Tensor> v_hist, p_hist, out;
  auto past_in = [&](Graph& g) {
    Past past;
    past.n = n;
    const size_t first = v_hist.size() > static_cast<size_t>(opt_.taps) ? v_hist.size() - opt_.taps : 0;
    for (size_t i = 0; i < first; ++i) past.v.push_back({}), past.p.push_back({});  // never read
    for (size_t i = first; i < v_hist.size(); ++i) past.v.push_back(g.input(v_hist[i])), past.p.push_back(g.input(p_hist[i]));
    return past;
  };
  auto record = [&](const rbm::Rbm& frame, Var v) {
    v_hist.push_back(v.value());
    p_hist.push_back(rbm::hidden_probs(frame, v).value());
  };
  for (const Tensor& f : prefix) {
    if (f.shape() != Shape{n, opt_.visible})
      throw ShapeError(fmt::format("temporal RBM generate: a prefix frame is {}, want [{}, {}]", f.shape().str(), n,
                                   opt_.visible));
    Graph g;
    g.bind(ps_);
    const rbm::Rbm frame = frame_rbm(g, past_in(g), false);
    record(frame, g.input(f.astype(ps_.dtype())));
  }
  for (int64_t t = 0; t < count; ++t) {
    Graph g;
    g.bind(ps_);
    const rbm::Rbm frame = frame_rbm(g, past_in(g), false);
    // the first frame's chain starts at its RBM's visible mean with the hiddens off: σ(b + b_dyn)
    Var v = v_hist.empty() ? rbm::visible_mean(frame, g.input(Tensor::zeros(Shape{n, opt_.hidden}, ps_.dtype())))
                           : g.input(v_hist.back());
    Var h;
    for (int s = 0; s < gibbs; ++s) {
      h = rbm::sample_hidden(frame, v, rng);
      v = rbm::sample_visible(frame, h, rng);
    }
    Var probs = rbm::visible_mean(frame, h);
    record(frame, probs);
    out.push_back(v_hist.back());
  }
  return out;
}

// ---- the zoo entries ------------------------------------------------------------------------------

bool is_temporal_rbm(const std::string& model) { return model == "rtrbm" || model == "trbm"; }

const nlohmann::json& temporal_rbm_defaults(const std::string& kind) {
  // the thesis's comparison (§3.11.3): 400 hidden units, no delay taps, CD-10 for 1000 updates then CD-25
  static const nlohmann::json common = {{"visible", 0},        {"hidden", 400},   {"weight_scale", 0.01},
                                        {"init_scale", 0.005}, {"cd_k", 10},      {"cd_k_late", 25},
                                        {"cd_switch", 1000},   {"predict_gibbs", 25}};
  static const nlohmann::json rtrbm = [] {
    nlohmann::json j = common;
    j["thesis_bptt"] = false;
    return j;
  }();
  static const nlohmann::json trbm = [] {
    nlohmann::json j = common;
    j["taps"] = 1;
    j["links"] = "hh";
    return j;
  }();
  if (kind == "rtrbm") return rtrbm;
  if (kind == "trbm") return trbm;
  throw Error(fmt::format("no temporal RBM named '{}' (rtrbm, trbm)", kind));
}

nlohmann::json resolve_temporal_rbm_options(const std::string& kind, const nlohmann::json& user) {
  nlohmann::json r = temporal_rbm_defaults(kind);
  if (user.is_null()) return r;
  if (!user.is_object()) throw Error(fmt::format("model '{}': model_options must be an object", kind));
  for (const auto& [key, value] : user.items()) {
    if (!r.contains(key))
      throw Error(fmt::format("model '{}' has no option '{}' (options: {})", kind, key, r.dump()));
    const bool ok = r[key].is_boolean()   ? value.is_boolean()
                    : r[key].is_string()  ? value.is_string()
                    : r[key].is_number_integer() ? value.is_number_integer()
                                                 : value.is_number();
    if (!ok) throw Error(fmt::format("model '{}': option {}={} should be like {}", kind, key, value.dump(), r[key].dump()));
    r[key] = value;
  }
  auto in_range = [&](const char* key, int64_t lo, int64_t hi) {
    if (!r.contains(key)) return;
    const int64_t v = r[key].get<int64_t>();
    if (v < lo || v > hi)
      throw Error(fmt::format("model '{}': option {}={} is outside [{}, {}]", kind, key, v, lo, hi));
  };
  in_range("visible", 0, int64_t{1} << 24);
  in_range("hidden", 1, int64_t{1} << 20);
  in_range("taps", 1, 1000);
  in_range("cd_k", 1, 100000);
  in_range("cd_k_late", 1, 100000);
  in_range("predict_gibbs", 1, 100000);
  in_range("cd_switch", 0, INT64_MAX);
  for (const char* key : {"weight_scale", "init_scale"})
    if (!(r[key].get<double>() > 0))
      throw Error(fmt::format("model '{}': option {}={} must be positive", kind, key, r[key].dump()));
  const TemporalRbmOptions o = temporal_rbm_options(kind, r);  // checks the links
  // the parameters are allocated when the model is built, before the run's memory check
  const double count = static_cast<double>(o.hidden) *
                       (static_cast<double>(o.visible) + o.taps * ((o.hh ? o.hidden : 0.0) + (o.vh ? o.visible : 0.0))) +
                       (o.vv ? o.taps * static_cast<double>(o.visible) * static_cast<double>(o.visible) : 0.0);
  if (count > 2.5e8)
    throw Error(fmt::format("model '{}': {:.3g} parameters (hidden {}, visible {}, taps {}): more than 2.5e8", kind, count,
                            o.hidden, o.visible, o.taps));
  return r;
}

TemporalRbmOptions temporal_rbm_options(const std::string& kind, const nlohmann::json& j) {
  TemporalRbmOptions o;
  o.recurrent = kind == "rtrbm";
  o.visible = j.at("visible").get<int64_t>();
  o.hidden = j.at("hidden").get<int64_t>();
  o.weight_scale = j.at("weight_scale").get<double>();
  o.init_scale = j.at("init_scale").get<double>();
  o.cd_k = j.at("cd_k").get<int>();
  o.cd_k_late = j.at("cd_k_late").get<int>();
  o.cd_switch = j.at("cd_switch").get<int64_t>();
  o.predict_gibbs = j.at("predict_gibbs").get<int>();
  if (o.recurrent) {
    o.thesis_bptt = j.at("thesis_bptt").get<bool>();
  } else {
    o.taps = j.at("taps").get<int>();
    // the thesis names a variant by the links it lacks (TRBM-VV: no A); here one lists those it has
    o.hh = o.vh = o.vv = false;
    const std::string links = j.at("links").get<std::string>();
    size_t start = 0;
    while (start <= links.size()) {
      const size_t end = std::min(links.find(',', start), links.size());
      const std::string l = links.substr(start, end - start);
      if (l == "hh") o.hh = true;
      else if (l == "vh") o.vh = true;
      else if (l == "vv") o.vv = true;
      else if (!(l.empty() && links.empty()))
        throw Error(fmt::format("model 'trbm': links '{}' has '{}'; list some of hh, vh, vv (e.g. \"hh,vh\"; \"\" "
                                "for none: a plain RBM)",
                                links, l));
      start = end + 1;
    }
  }
  return o;
}

}  // namespace tg::models
