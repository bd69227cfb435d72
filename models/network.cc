#include "models/network.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <sstream>

#include "core/error.h"
#include "core/options.h"
#include "models/init.h"

namespace tg::models {

bool Network::has_dropout() const {
  for (const Layer& l : layers_)
    if (l.dropout > 0) return true;
  return false;
}

void Network::add_layer(int64_t in, int64_t out, Activation a, double dropout, const Init& weights, const Init& bias,
                        Rng& rng) {
  if (!layers_.empty() && layers_.back().out != in)
    throw Error(fmt::format("{}: layer {} reads {} units but layer {} computes {}", kind_, layers_.size(), in,
                            layers_.size() - 1, layers_.back().out));
  const std::string l = std::to_string(layers_.size());
  Layer layer{params_.add(kind_ + "/W" + l, {in, out}, weights, &rng), params_.add(kind_ + "/b" + l, {out}, bias, &rng),
              in, out, a, dropout};
  layers_.push_back(layer);
}

Network::Forward Network::forward(Graph& g, Var x, const std::vector<Tensor>& keep) const {
  if (!keep.empty() && keep.size() != layers_.size())
    throw Error(fmt::format("{}: {} dropout masks for {} layers", kind_, keep.size(), layers_.size()));
  if (x.shape().rank() != 2 || x.shape()[1] != input_size())
    throw Error(fmt::format("{}: input of shape {} for a network of {} inputs", kind_, x.shape().str(), input_size()));
  g.bind(params_);
  Forward f;
  for (size_t l = 0; l < layers_.size(); ++l) {
    const Layer& layer = layers_[l];
    if (!keep.empty() && keep[l].raw()) x = ops::mul(x, g.input(keep[l].astype(x.dtype())));
    Var u = ops::matmul(x, g[layer.W]) + g[layer.b];
    if (l + 1 == layers_.size()) {
      g.tag(u, "logits");
      f.logits = u;
    } else {
      g.tag(u, "preact");
      f.preact.push_back(u);
      x = activate(layer.activation, u);
    }
  }
  return f;
}

std::vector<int64_t> read_layer_sizes(const nlohmann::json& spec, const std::string& who) {
  std::vector<int64_t> sizes;
  auto bad = [&](const std::string& why) {
    return Error(fmt::format("{}: layer sizes {}: {}", who, spec.dump(), why));
  };
  if (spec.is_string()) {
    std::stringstream in(spec.get<std::string>());
    std::string part;
    while (std::getline(in, part, '-')) {
      size_t used = 0;
      int64_t n = 0;
      try {
        n = std::stoll(part, &used);
      } catch (const std::exception&) {
        throw bad(fmt::format("'{}' is not a size", part));
      }
      if (used != part.size()) throw bad(fmt::format("'{}' is not a size", part));
      sizes.push_back(n);
    }
  } else if (spec.is_array()) {
    for (const auto& v : spec) {
      if (!v.is_number_integer()) throw bad(fmt::format("{} is not a size", v.dump()));
      sizes.push_back(v.get<int64_t>());
    }
  } else {
    throw bad("give a string like \"784-400-200-30\" or a list of sizes");
  }
  if (sizes.size() < 2) throw bad("needs at least two sizes (the input and one layer)");
  for (int64_t n : sizes)
    if (n < 1 || n > 1'000'000) throw bad(fmt::format("{} is not a size in [1, 1000000]", n));
  return sizes;
}

namespace {

Activation activation_named(const OptionReader& o, const std::string& key) {
  const std::string a = o.choice(key, {"logistic", "tanh", "relu", "linear"});
  return a == "tanh" ? Activation::tanh : a == "logistic" ? Activation::logistic : a == "relu" ? Activation::relu
                                                                                                : Activation::linear;
}

tasks::OutputKind output_named(const OptionReader& o) {
  return *tasks::output_kind_named(o.choice("output", {"softmax", "logistic", "linear"}));
}

double probability(const OptionReader& o, const std::string& key) { return o.number(key, 0.0, 1.0, false, true); }

// The initialisers of one layer. Sparse initialisation (Martens 2010; 000 §2.5) gives each unit
// init_k incoming N(0, init_scale²) weights; for tanh units the thesis rescales those weights by 0.25
// and shifts the biases to -0.5 ("so that the average output of each unit is closer to zero", §7.3.1).
struct LayerInit {
  Init weights, bias;
};
LayerInit layer_init(const init::InitOptions& opt, Activation a, bool output_layer) {
  Init w = opt.weights(opt.scheme);
  double factor = output_layer ? opt.output_scale : 1.0;
  const bool tanh_si = opt.scheme == "sparse" && a == Activation::tanh && !output_layer;
  if (tanh_si) factor *= 0.25;
  if (factor != 1.0) w = init::scaled(w, factor);
  return {w, tanh_si ? init::constant(-0.5) : init::zeros()};
}

nlohmann::json with_init(nlohmann::json j, const std::string& scheme, double scale) {
  const nlohmann::json inits = init::init_defaults(false, scale);
  for (const auto& [k, v] : inits.items()) j[k] = v;
  j["init"] = scheme;
  j.erase("input_scale");  // every layer reads the one before: no separate input weights
  return j;
}

// The layers: sizes[0] inputs, then each next size; the hidden layers' activations by `activation_of`.
std::unique_ptr<Network> build(const std::string& kind, const OptionReader& o, DType dt, Rng& rng,
                               const std::vector<int64_t>& sizes, const std::function<Activation(size_t)>& activation_of) {
  const tasks::OutputKind output = output_named(o);
  auto net = std::make_unique<Network>(kind, dt, output);
  const init::InitOptions opt = init::InitOptions::read(o);
  const double hidden_dropout = probability(o, "dropout"), input_dropout = probability(o, "input_dropout");
  for (size_t l = 0; l + 1 < sizes.size(); ++l) {
    const bool last = l + 2 == sizes.size();
    const Activation a = last ? Activation::linear : activation_of(l);  // the last layer's u is the logits
    const LayerInit li = layer_init(opt, a, last);
    net->add_layer(sizes[l], sizes[l + 1], a, l == 0 ? input_dropout : hidden_dropout, li.weights, li.bias, rng);
  }
  return net;
}

NetworkInfo mlp_info() {
  nlohmann::json d = {{"in", 0},          {"out", 0},        {"output", "softmax"},  {"hidden", {100}},
                      {"activation", "tanh"}, {"dropout", 0.0}, {"input_dropout", 0.0}};
  return {"mlp", "multilayer perceptron: any number of sigmoid / tanh / ReLU / linear layers, dropout on their inputs",
          "002 §2.1, §2.8; 000 §1.9", with_init(d, "glorot", 1.0),
          [](const nlohmann::json& cfg, DType dt, Rng& rng) {
            OptionReader o("network 'mlp'", cfg);
            std::vector<int64_t> sizes = {o.size("in")};
            for (int64_t h : o.sizes("hidden")) sizes.push_back(h);
            sizes.push_back(o.size("out"));
            const Activation a = activation_named(o, "activation");
            return build("mlp", o, dt, rng, sizes, [a](size_t) { return a; });
          }};
}

NetworkInfo autoencoder_info() {
  nlohmann::json d = {{"in", 0},           {"out", 0},           {"output", "logistic"},
                      {"encoder", "784-400-200-100-50-25-6"},      {"activation", "logistic"},
                      {"code", "linear"},  {"dropout", 0.0},     {"input_dropout", 0.0}};
  return {"autoencoder",
          "deep autoencoder: an encoder spec (784-400-200-100-50-25-6), its mirror as decoder, a linear code layer",
          "000 §1.8, §3.5", with_init(d, "sparse", 1.0),
          [](const nlohmann::json& cfg, DType dt, Rng& rng) {
            OptionReader o("network 'autoencoder'", cfg);
            const std::vector<int64_t> encoder = read_layer_sizes(cfg.at("encoder"), "network 'autoencoder': option 'encoder'");
            const int64_t in = o.size("in"), out = o.size("out");
            if (encoder.front() != in)
              o.fail("encoder", fmt::format("starts at {} units, but the data has {} inputs (\"{}-...\")", encoder.front(), in, in));
            if (out != in) o.fail("out", fmt::format("is {}: an autoencoder reconstructs its {} inputs", out, in));
            std::vector<int64_t> sizes = encoder;
            for (size_t k = encoder.size() - 1; k-- > 0;) sizes.push_back(encoder[k]);  // the mirrored decoder
            const Activation hidden = activation_named(o, "activation"), code = activation_named(o, "code");
            const size_t code_layer = encoder.size() - 2;  // the layer that computes the code
            return build("autoencoder", o, dt, rng, sizes,
                         [=](size_t l) { return l == code_layer ? code : hidden; });
          }};
}

}  // namespace

const std::vector<NetworkInfo>& networks() {
  static const std::vector<NetworkInfo> all = {mlp_info(), autoencoder_info()};
  return all;
}

const NetworkInfo* find_network(const std::string& name) {
  for (const NetworkInfo& n : networks())
    if (n.name == name) return &n;
  return nullptr;
}

nlohmann::json resolve(const NetworkInfo& info, const nlohmann::json& user) {
  return merge_options(fmt::format("network '{}'", info.name), info.defaults, user, /*check_kinds=*/false);
}

}  // namespace tg::models
