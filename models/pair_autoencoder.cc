#include "models/pair_autoencoder.h"

#include <fmt/format.h>

#include <cmath>

#include "core/error.h"
#include "core/options.h"
#include "models/gating_pyramid.h"
#include "ops/ops.h"

namespace tg::models {

PairAutoencoder::PairAutoencoder(const PairAutoencoderOptions& o, DType dt, Rng& rng) : opt_(o), ps_(dt) {
  if (o.frame < 1 || o.hidden < 1)
    throw Error(fmt::format("model 'pair_ae': frame ({}) and hidden ({}) must be at least 1", o.frame, o.hidden));
  const int64_t in = 2 * o.frame;
  W1_ = ps_.add("pair_ae/W1", {in, o.hidden}, init::normal(o.init_scale / std::sqrt(static_cast<double>(in))), &rng);
  b1_ = ps_.add("pair_ae/b1", {o.hidden}, init::zeros());
  W2_ = ps_.add("pair_ae/W2", {o.hidden, in}, init::normal(o.init_scale / std::sqrt(static_cast<double>(o.hidden))), &rng);
  b2_ = ps_.add("pair_ae/b2", {in}, init::zeros());
}

std::pair<Var, Var> PairAutoencoder::reconstruct(Graph& g, Var x_in, Var y_in) const {
  const std::vector<Var> pair{x_in, y_in};
  const Var h = ops::logistic(ops::add(ops::matmul(ops::concat(pair, 1), g[W1_]), g[b1_]));
  const Var out = ops::add(ops::matmul(h, g[W2_]), g[b2_]);
  return {ops::slice(out, 1, 0, opt_.frame), ops::slice(out, 1, opt_.frame, 2 * opt_.frame)};
}

int64_t pair_autoencoder_hidden(int64_t in, int64_t factors, int64_t mappings) {
  const double fgae = 2.0 * static_cast<double>(factors * in) + static_cast<double>(factors * mappings + mappings + in);
  return std::max<int64_t>(1, std::llround((fgae - 2.0 * static_cast<double>(in)) / (4.0 * static_cast<double>(in) + 1)));
}

const nlohmann::json& pair_autoencoder_defaults() {
  static const nlohmann::json j = {{"frame", 0}, {"hidden", 0}, {"init_scale", 1.0}, {"corruption", 0.3}};
  return j;
}

nlohmann::json resolve_pair_autoencoder_options(const nlohmann::json& user) {
  nlohmann::json r = merge_options("model 'pair_ae'", pair_autoencoder_defaults(), user);
  PairAutoencoderOptions o = pair_autoencoder_options(r);  // checks every value
  if (o.hidden == 0 && o.frame > 0) {
    const nlohmann::json& f = gating_pyramid_defaults("fgae");
    r["hidden"] = pair_autoencoder_hidden(o.frame, f.at("factors").get<int64_t>(), f.at("mappings").get<int64_t>());
  }
  return r;
}

PairAutoencoderOptions pair_autoencoder_options(const nlohmann::json& j) {
  const OptionReader r("model 'pair_ae'", j);
  PairAutoencoderOptions o;
  o.frame = r.integer("frame", 0, int64_t{1} << 24);
  o.hidden = r.integer("hidden", 0, int64_t{1} << 20);
  o.init_scale = r.number("init_scale", 0, 1e3, true);
  o.corruption = r.number("corruption", 0, 1, false, true);
  return o;
}

}  // namespace tg::models
