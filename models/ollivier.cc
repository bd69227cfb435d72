#include "models/ollivier.h"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <random>
#include <utility>

#include <fmt/format.h>

#include "core/error.h"

namespace tg::models::ollivier {

int64_t UnitGraph::self_loop(int32_t i) const {
  for (int64_t e = 0; e < edges(); ++e)
    if (src[e] == i && dst[e] == i) return e;
  throw InternalError(fmt::format("unit graph: unit {} has no self-loop", i));
}

UnitGraph random_graph(int64_t n, int64_t d, const std::string& mode, Rng& rng) {
  if (n <= 0) throw Error(fmt::format("random graph: {} units", n));
  if (mode != "out" && mode != "in" && mode != "full")
    throw Error(fmt::format("random graph: mode '{}' is not one of out, in, full", mode));
  if (mode != "full" && d < 1) throw Error(fmt::format("random graph: degree {} < 1 (the self-loop counts)", d));
  std::vector<std::pair<int32_t, int32_t>> e;  // (dst, src)
  if (mode == "full" || d >= n) {
    for (int32_t j = 0; j < n; ++j)
      for (int32_t i = 0; i < n; ++i) e.push_back({j, i});
  } else {
    std::vector<int32_t> others;
    for (int32_t u = 0; u < n; ++u) {
      others.clear();
      for (int32_t v = 0; v < n; ++v)
        if (v != u) others.push_back(v);
      for (int64_t k = 0; k < d - 1; ++k) {  // partial Fisher-Yates: d-1 distinct picks
        std::uniform_int_distribution<int64_t> pick(k, static_cast<int64_t>(others.size()) - 1);
        std::swap(others[k], others[pick(rng)]);
      }
      e.push_back({u, u});
      for (int64_t k = 0; k < d - 1; ++k) {
        if (mode == "out") e.push_back({others[k], u});  // u -> others[k]
        else e.push_back({u, others[k]});                // others[k] -> u
      }
    }
  }
  std::sort(e.begin(), e.end());
  UnitGraph g;
  g.n = n;
  for (auto [j, i] : e) {
    g.src.push_back(i);
    g.dst.push_back(j);
  }
  g.src_idx = ops::make_index(g.src);
  g.dst_idx = ops::make_index(g.dst);
  return g;
}

Var edge_matvec(Var a, Var w, const UnitGraph& graph) {
  const int64_t E = graph.edges();
  Var msg = ops::gather_rows(ops::transpose(a), graph.src_idx);  // [E, B]: a[b, src(e)]
  Var we = w.shape().rank() == 1 ? ops::reshape(w, {E, 1}) : ops::transpose(w);
  return ops::transpose(ops::scatter_add_rows(msg * we, graph.dst_idx, graph.n));
}

nlohmann::json common_defaults() {
  return {{"vocab", 27},        {"in", 0},            {"out", 0},          {"units", 16},        {"degree", 3},
          {"graph", "out"},     {"learned_h0", true}, {"init", "ollivier"}, {"init_scale", 0.1},
          {"symbol_freq", nlohmann::json::array()}, {"symbol_freq_all", nlohmann::json::array()},
          {"freq_floor", 1e-6}};
}

std::vector<double> symbol_frequencies(std::span<const int32_t> symbols, int64_t alphabet,
                                       std::span<const double> weights) {
  if (!weights.empty() && weights.size() != symbols.size())
    throw Error(fmt::format("symbol_frequencies: {} weights for {} symbols", weights.size(), symbols.size()));
  std::vector<double> f(alphabet, 0.0);
  double total = 0;
  for (size_t t = 0; t < symbols.size(); ++t) {
    if (symbols[t] < 0 || symbols[t] >= alphabet)
      throw Error(fmt::format("symbol_frequencies: symbol {} outside [0, {})", symbols[t], alphabet));
    double w = weights.empty() ? 1.0 : weights[t];
    f[symbols[t]] += w;
    total += w;
  }
  if (total > 0)
    for (double& x : f) x /= total;
  return f;
}

nlohmann::json statistics_options(std::span<const int32_t> targets, std::span<const double> chi,
                                  std::span<const int32_t> inputs, int64_t in, int64_t out) {
  return {{"symbol_freq", symbol_frequencies(targets, out, chi)}, {"symbol_freq_all", symbol_frequencies(inputs, in)}};
}

GlnnUnitInit glnn_unit_init(int64_t j, double alpha) {
  if (j < 1) throw Error(fmt::format("glnn init: unit {} (units are numbered from 1)", j));
  GlnnUnitInit r;
  r.mu = 1.0 / static_cast<double>(j + 1);
  r.beta = -std::sqrt(alpha * (alpha - r.mu));
  r.V0 = std::atanh(r.beta / alpha);
  return r;
}

namespace detail {

namespace {
std::vector<double> read_freq(const nlohmann::json& v, int64_t n, const std::string& model, const char* key) {
  if (!v.is_array()) throw Error(fmt::format("model '{}': option '{}' must be an array", model, key));
  if (v.empty()) return std::vector<double>(n, 1.0 / static_cast<double>(n));
  if (static_cast<int64_t>(v.size()) != n)
    throw Error(fmt::format("model '{}': option '{}' has {} entries, expected {}", model, key, v.size(), n));
  std::vector<double> f = v.get<std::vector<double>>();
  double s = 0;
  for (double x : f) {
    if (!(x >= 0)) throw Error(fmt::format("model '{}': option '{}' has a negative or NaN entry", model, key));
    s += x;
  }
  if (!(s > 0)) throw Error(fmt::format("model '{}': option '{}' sums to 0", model, key));
  for (double& x : f) x /= s;  // counts are accepted too
  return f;
}
}  // namespace

Common read_common(const std::string& model, const nlohmann::json& cfg, bool gated, UnitGraph& graph, Rng& rng) {
  Common c;
  OptionReader o(fmt::format("model '{}'", model), cfg);
  c.io = read_io_sizes(o);
  c.in = c.io.input_size();
  c.out = c.io.out;
  c.units = o.size("units");
  c.learned_state = cfg.at("learned_h0").get<bool>();
  c.init = cfg.at("init").get<std::string>();
  if (c.init != "ollivier" && c.init != "normal")
    throw Error(fmt::format("model '{}': init '{}' is not one of ollivier, normal", model, c.init));
  c.init_scale = cfg.at("init_scale").get<double>();
  c.nu = read_freq(cfg.at("symbol_freq"), c.out, model, "symbol_freq");
  c.nu_all = read_freq(cfg.at("symbol_freq_all"), c.in, model, "symbol_freq_all");
  c.freq_floor = cfg.at("freq_floor").get<double>();
  int64_t d = cfg.at("degree").get<int64_t>();
  if (d == 0) d = gated ? static_cast<int64_t>(std::ceil(std::sqrt(2.0 * static_cast<double>(c.in)))) : c.in;
  graph = random_graph(c.units, d, cfg.at("graph").get<std::string>(), rng);
  return c;
}

std::vector<double> log_frequencies(const Common& c) {
  std::vector<double> w0(c.out);
  for (int64_t y = 0; y < c.out; ++y) w0[y] = std::log(std::max(c.nu[y], c.freq_floor));
  return w0;
}

std::vector<double> centred_uniform(const Common& c, const std::vector<double>& scale, Rng& rng) {
  std::uniform_real_distribution<double> U(0.0, 1.0);
  std::vector<double> u(c.in * c.units);  // drawn unit by unit: u[j][y]
  for (int64_t j = 0; j < c.units; ++j)
    for (int64_t y = 0; y < c.in; ++y) u[j * c.in + y] = U(rng);
  std::vector<double> r(c.in * c.units);  // laid out [y][j]
  for (int64_t j = 0; j < c.units; ++j) {
    double mean = 0;
    for (int64_t y = 0; y < c.in; ++y) mean += c.nu_all[y] * u[j * c.in + y];
    for (int64_t y = 0; y < c.in; ++y) r[y * c.units + j] = scale[j] * (u[j * c.in + y] - mean);
  }
  return r;
}

}  // namespace detail
}  // namespace tg::models::ollivier
