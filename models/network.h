// Feedforward networks as graphs: layer l computes u_l = x_l W_l + b_l and x_{l+1} = e_l(u_l); the
// last layer's u is the logits, read by the matching loss of the output kind (logistic + binary
// cross-entropy, softmax + cross-entropy, linear + squared error), so the Gauss-Newton product is PSD.
// Two builders: the MLP (Galvan 002 §2.1, with dropout §2.8) and the deep autoencoder of Sutskever's
// Ch. 7 (000 §1.8: an encoder spec, its mirror as decoder, a linear code layer by default).
// Networks read tasks::Images; they have their own registry beside the sequence models'.
#pragma once
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/graph.h"
#include "core/params.h"
#include "models/activation.h"
#include "tasks/batch.h"

namespace tg::models {

class Network {
 public:
  struct Layer {
    ParamId W, b;            // [in, out], [out]
    int64_t in = 0, out = 0;
    Activation activation;   // of the units this layer computes (the last layer's: its output kind's)
    double dropout = 0;      // p: each unit of this layer's input dropped with probability p in training
  };
  struct Forward {
    Var logits;                // [N, out], tagged "logits"
    std::vector<Var> preact;   // each hidden layer's pre-activation u_l [N, width], tagged "preact"
  };

  Network(std::string kind, DType dt, tasks::OutputKind output) : kind_(std::move(kind)), params_(dt), output_(output) {}
  const std::string& kind() const { return kind_; }
  tasks::OutputKind output_kind() const { return output_; }
  ParamSet& params() { return params_; }
  const ParamSet& params() const { return params_; }
  const std::vector<Layer>& layers() const { return layers_; }
  int64_t input_size() const { return layers_.front().in; }
  int64_t output_size() const { return layers_.back().out; }
  bool has_dropout() const;

  // Appends a layer with its parameters (initialised by the caller's Inits, drawn from rng).
  void add_layer(int64_t in, int64_t out, Activation a, double dropout, const Init& weights, const Init& bias, Rng& rng);
  // Binds params() into g and computes the layers on x [N, in]; keep: the dropout factors of
  // tasks::Images::keep (one per layer, an empty tensor where that layer has none), or none at all.
  Forward forward(Graph& g, Var x, const std::vector<Tensor>& keep = {}) const;

 private:
  std::string kind_;
  ParamSet params_;
  tasks::OutputKind output_;
  std::vector<Layer> layers_;
};

// Everything a factory may read (sizes from the data: "in", "out"; the rest from the user), the dtype
// and a seeded RNG for the initialisation.
using NetworkFactory = std::function<std::unique_ptr<Network>(const nlohmann::json& cfg, DType dt, Rng& rng)>;

struct NetworkInfo {
  std::string name;         // "mlp", "autoencoder"
  std::string description;  // one line
  std::string seed;         // which seed document(s)
  nlohmann::json defaults;  // every option with its default value
  NetworkFactory make;
};

const std::vector<NetworkInfo>& networks();
const NetworkInfo* find_network(const std::string& name);  // null when `name` is not a network
// Merges user options over the defaults; unknown keys are an error naming the key and the network.
nlohmann::json resolve(const NetworkInfo& info, const nlohmann::json& user);

// A layer-size spec as the thesis writes it, "784-400-200-100-50-25-6", or a JSON list of sizes; every
// size >= 1, at least two. Errors name `who` and the spec.
std::vector<int64_t> read_layer_sizes(const nlohmann::json& spec, const std::string& who);

}  // namespace tg::models
