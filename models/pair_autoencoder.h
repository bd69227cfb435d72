// The baseline the factored gated autoencoder is compared with (issue: "reconstruction error against a
// plain autoencoder with the same parameter count"): one sigmoid hidden layer reading both images of a
// pair and reconstructing both, trained like the FGAE (symmetric, denoising):
//   h = σ([x, y] W₁ + b₁),   [x̂, ŷ] = h W₂ + b₂
// Rows are cases: x, y [N, in]. Its `hidden` size is chosen to match an FGAE's parameter count
// (pair_autoencoder_hidden).
#pragma once
#include <cstdint>

#include <nlohmann/json.hpp>

#include "core/graph.h"
#include "core/params.h"

namespace tg::models {

struct PairAutoencoderOptions {
  int64_t frame = 0;  // units per image (from the task)
  int64_t hidden = 0;
  double init_scale = 1.0;
  double corruption = 0.3;  // zero-masking probability of the inputs in training
};

class PairAutoencoder {
 public:
  PairAutoencoder(const PairAutoencoderOptions& o, DType dt, Rng& rng);  // tg::Error for bad sizes
  const PairAutoencoderOptions& options() const { return opt_; }
  const ParamSet& params() const { return ps_; }
  ParamSet& params() { return ps_; }
  // [x̂, ŷ] from the (possibly corrupted) inputs: two vars [N, in]. The graph must have params() bound.
  std::pair<Var, Var> reconstruct(Graph& g, Var x_in, Var y_in) const;

 private:
  PairAutoencoderOptions opt_;
  ParamSet ps_;
  ParamId W1_, b1_, W2_, b2_;
};

// The hidden size whose parameter count, 4·in·h + h + 2·in, is nearest an FGAE's with these sizes and
// biases (2·F·in + F·H + H + in).
int64_t pair_autoencoder_hidden(int64_t in, int64_t factors, int64_t mappings);

// The zoo entry `pair_ae`: options with defaults (hidden 0: the FGAE defaults' parameter count), resolved
// over the user's.
const nlohmann::json& pair_autoencoder_defaults();
nlohmann::json resolve_pair_autoencoder_options(const nlohmann::json& user);
PairAutoencoderOptions pair_autoencoder_options(const nlohmann::json& resolved);

}  // namespace tg::models
