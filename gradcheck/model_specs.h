// One gradient-check spec row per registered model (at least one; variants may add rows). Each row
// builds the model in float64 at tiny sizes with random parameters and checks its loss on a tiny
// batch, as a function of all parameters, with check_fn. The coverage test fails when a registered
// model has no row here.
#pragma once
#include <cstdint>
#include <memory>
#include <ostream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "models/loss.h"
#include "models/model.h"
#include "gradcheck/gradcheck.h"

namespace tg::check {

struct ModelSpec {
  std::string name;        // row label: the registry name, or "<model>/<variant>"
  std::string model;       // registry name
  nlohmann::json options;  // over the model's defaults: tiny sizes
  double lo = -0.5, hi = 0.5;  // parameters drawn uniform in [lo, hi]
};

const std::vector<ModelSpec>& model_specs();
inline void PrintTo(const ModelSpec& s, std::ostream* os) { *os << s.name; }  // readable gtest names

// The row's model in float64 with every parameter drawn U[lo, hi] (so zero-initialised biases,
// peepholes and learned initial states are exercised too).
std::unique_ptr<models::Model> make_model(const ModelSpec& spec, uint64_t seed = 1);

// T steps of B sequences with random inputs and targets of the model's sizes. The last sequence's
// last step is padding (input mask 0, excluded from the loss) and step 0 is not in the loss, so both
// kinds of mask are exercised.
struct TinyBatch {
  models::Sequence xs;
  models::Targets ys;
};
TinyBatch tiny_batch(const models::Model& m, int64_t T = 4, int64_t B = 2, uint64_t seed = 7);

// f(θ) = {matching loss, all logits [T·B, out]} with θ given as one leaf per parameter.
Fn model_loss_fn(const models::Model& m, const TinyBatch& batch);

// check_fn on model_loss_fn at the model's parameters.
Report check_model(const ModelSpec& spec, const Options& opt = {});

}  // namespace tg::check
