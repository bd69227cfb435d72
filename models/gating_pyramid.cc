#include "models/gating_pyramid.h"

#include <fmt/format.h>

#include <cmath>

#include "core/error.h"
#include "core/options.h"
#include "ops/ops.h"

namespace tg::models {

GatingPyramid::GatingPyramid(const GatingPyramidOptions& o, DType dt, Rng& rng) : opt_(o), ps_(dt) {
  const std::string who = fmt::format("model '{}'", o.kind);
  if (o.frame < 1) throw Error(fmt::format("{}: frame must be at least 1 (got {})", who, o.frame));
  if (o.layers() < 1 || o.mappings.size() != o.factors.size())
    throw Error(fmt::format("{}: {} layers of factors and {} of mappings", who, o.factors.size(), o.mappings.size()));
  if (o.kind == "fgae" && o.layers() != 1) throw Error(fmt::format("{}: one layer (got {})", who, o.layers()));
  if ((o.kind == "cpgp") != (o.cond > 0))
    throw Error(fmt::format("{}: {} conditioning inputs per step ({})", who, o.cond,
                            o.kind == "cpgp" ? "the CPGP needs some: train it on a task with inputs beside the frames"
                                             : "only the CPGP reads inputs beside the frames"));
  if (o.cond_mode != "add" && o.cond_mode != "preact")
    throw Error(fmt::format("{}: cond_mode '{}' is not add or preact", who, o.cond_mode));
  int64_t in = o.frame;
  for (int l = 0; l < o.layers(); ++l) {
    layers_.push_back(add_gae_layer(ps_, fmt::format("{}/l{}", o.kind, l + 1), in, o.factors[l], o.mappings[l],
                                    o.biases, o.init_scale, rng));
    in = o.mappings[l];
  }
  if (o.cond > 0) {
    A_ = ps_.add(o.kind + "/A", {o.cond, in}, init::normal(o.init_scale / std::sqrt(static_cast<double>(o.cond))), &rng);
    a_ = ps_.add(o.kind + "/a", {in}, init::zeros());
  }
}

std::vector<Var> GatingPyramid::layer_inputs(Graph& g, const std::vector<Var>& frames, int layer) const {
  if (layer < 1 || layer > opt_.layers())
    throw Error(fmt::format("model '{}': no layer {} (it has {})", opt_.kind, layer, opt_.layers()));
  std::vector<Var> z = frames;
  for (int l = 0; l + 1 < layer; ++l) {
    std::vector<Var> up;
    for (size_t t = 1; t < z.size(); ++t) up.push_back(gae_mappings(g, layers_[l], z[t - 1], z[t]));
    z = std::move(up);
  }
  return z;
}

GatingPyramid::Reconstruction GatingPyramid::reconstruction(Graph& g, const std::vector<Var>& frames, int layer,
                                                            const std::vector<Tensor>& keep) const {
  std::vector<Var> z = layer_inputs(g, frames, layer);
  if (z.size() < 2)
    throw Error(fmt::format("model '{}': layer {} needs {} frames to see one pair of its inputs, got {}", opt_.kind,
                            layer, layer + 1, frames.size()));
  if (!keep.empty() && keep.size() != z.size())
    throw Error(fmt::format("model '{}': {} corruption masks for {} inputs of layer {}", opt_.kind, keep.size(),
                            z.size(), layer));
  if (layer > 1)
    for (Var& v : z) v = ops::stop_gradient(v);  // the layers below are fixed while this one trains
  std::vector<Var> in = z;
  if (!keep.empty())
    for (size_t t = 0; t < z.size(); ++t) in[t] = ops::mul(z[t], g.input(keep[t]));
  const GaeLayer& l = layers_[static_cast<size_t>(layer - 1)];
  Reconstruction r;
  for (size_t t = 1; t < z.size(); ++t) {
    const Var m = gae_mappings(g, l, in[t - 1], in[t]);
    const Var y_hat = gae_forward(g, l, in[t - 1], m), x_hat = gae_backward(g, l, in[t], m);
    const Var e = ops::add(ops::sum(ops::square(ops::sub(x_hat, z[t - 1]))), ops::sum(ops::square(ops::sub(y_hat, z[t]))));
    r.error = r.error.empty() ? e : ops::add(r.error, e);
    r.forward.push_back(y_hat);
    r.backward.push_back(x_hat);
    r.count += 2.0 * static_cast<double>(z[t].shape()[0] * z[t].shape()[1]);
  }
  r.error = ops::scale(r.error, 0.5);
  return r;
}

std::vector<Var> GatingPyramid::predict(Graph& g, const std::vector<Var>& frames, int64_t seed, int64_t count,
                                        const std::vector<Var>& conds) const {
  const int n = opt_.layers();
  if (seed < n + 1 || seed > static_cast<int64_t>(frames.size()))
    throw Error(fmt::format("model '{}': {} layers infer their top mapping from {} frames; the data gives {} seed "
                            "frames (task option seed_frames)",
                            opt_.kind, n, n + 1, seed));
  if (opt_.cond > 0 && static_cast<int64_t>(conds.size()) != count)
    throw Error(fmt::format("model '{}': {} conditioning inputs for {} predicted frames", opt_.kind, conds.size(), count));
  // Infer bottom-up from the last n + 1 seed frames: state[l] is layer l + 1's latest input.
  std::vector<Var> z(frames.begin() + (seed - n - 1), frames.begin() + seed), state;
  for (int l = 0; l < n; ++l) {
    state.push_back(z.back());
    std::vector<Var> up;
    for (size_t t = 1; t < z.size(); ++t)
      up.push_back(l + 1 < n ? gae_mappings(g, layers_[l], z[t - 1], z[t])
                             : gae_preactivation(g, layers_[l], z[t - 1], z[t]));
    z = std::move(up);
  }
  const Var top_preact = z.back(), top = ops::logistic(top_preact);
  std::vector<Var> out;
  for (int64_t k = 0; k < count; ++k) {
    Var m = top;
    if (opt_.cond > 0) {
      const Var drive = ops::add(ops::matmul(conds[static_cast<size_t>(k)], g[A_]), g[a_]);
      m = opt_.cond_mode == "add" ? ops::add(top, ops::logistic(drive)) : ops::logistic(ops::add(top_preact, drive));
    }
    for (int l = n - 1; l >= 0; --l) {
      state[l] = gae_forward(g, layers_[l], state[l], m);
      m = state[l];
    }
    out.push_back(state[0]);
  }
  return out;
}

// ---- the zoo entries ----------------------------------------------------------------------------------

bool is_gating_pyramid(const std::string& model) { return model == "fgae" || model == "pgp" || model == "cpgp"; }

const nlohmann::json& gating_pyramid_defaults(const std::string& kind) {
  // Sizes of the authors' sine-wave pyramids (grammar-cells code: 200/100, 100/50, 10/10 factors/mappings).
  static const nlohmann::json common = {{"frame", 0},       {"biases", true},     {"init_scale", 1.0},
                                        {"corruption", 0.3}};
  static const nlohmann::json fgae = [] {
    nlohmann::json j = common;
    j["factors"] = 200;
    j["mappings"] = 100;
    return j;
  }();
  static const nlohmann::json pgp = [] {
    nlohmann::json j = common;
    j["layers"] = 2;
    j["factors"] = {200, 100, 10};
    j["mappings"] = {100, 50, 10};
    j["pretrain_steps"] = 0;
    return j;
  }();
  static const nlohmann::json cpgp = [] {
    nlohmann::json j = pgp;
    j["layers"] = 3;
    j["cond"] = 0;
    j["cond_mode"] = "add";
    return j;
  }();
  if (kind == "fgae") return fgae;
  if (kind == "pgp") return pgp;
  if (kind == "cpgp") return cpgp;
  throw Error(fmt::format("no gating pyramid named '{}' (fgae, pgp, cpgp)", kind));
}

nlohmann::json resolve_gating_pyramid_options(const std::string& kind, const nlohmann::json& user) {
  nlohmann::json r = merge_options(fmt::format("model '{}'", kind), gating_pyramid_defaults(kind), user);
  const GatingPyramidOptions o = gating_pyramid_options(kind, r);  // checks every value
  double count = 0;
  int64_t in = o.frame;
  for (int l = 0; l < o.layers(); ++l) {
    count += static_cast<double>(o.factors[l]) * (2.0 * static_cast<double>(in) + static_cast<double>(o.mappings[l]));
    in = o.mappings[l];
  }
  if (count > 2.5e8)
    throw Error(fmt::format("model '{}': {:.3g} parameters: more than 2.5e8", kind, count));
  return r;
}

GatingPyramidOptions gating_pyramid_options(const std::string& kind, const nlohmann::json& j) {
  const OptionReader r(fmt::format("model '{}'", kind), j);
  GatingPyramidOptions o;
  o.kind = kind;
  o.frame = r.integer("frame", 0, int64_t{1} << 24);
  o.biases = r.flag("biases");
  o.init_scale = r.number("init_scale", 0, 1e3, true);
  o.corruption = r.number("corruption", 0, 1, false, true);
  const int64_t layers = kind == "fgae" ? 1 : r.integer("layers", 1, 8);
  auto per_layer = [&](const char* key) {
    std::vector<int64_t> v = r.sizes(key);
    if (v.size() == 1) v.assign(static_cast<size_t>(layers), v[0]);
    if (static_cast<int64_t>(v.size()) < layers)
      r.fail(key, fmt::format("lists {} sizes for {} layers", v.size(), layers));
    v.resize(static_cast<size_t>(layers));
    for (int64_t s : v)
      if (s > (int64_t{1} << 20)) r.fail(key, fmt::format("has a size above 2^20 ({})", s));
    return v;
  };
  o.factors = per_layer("factors");
  o.mappings = per_layer("mappings");
  if (kind != "fgae") o.pretrain_steps = r.count("pretrain_steps");
  if (kind == "cpgp") {
    o.cond = r.integer("cond", 0, int64_t{1} << 20);
    o.cond_mode = r.choice("cond_mode", {"add", "preact"});
  }
  return o;
}

}  // namespace tg::models
