// Small helpers shared by the part-B models that are not cell models (ESN, GLNN, GNN, Ollivier's
// RNN): option merging, the per-step input term, input masks, initial states. Plain graph code; no
// derivatives anywhere.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/graph.h"
#include "core/params.h"
#include "models/model.h"
#include "core/options.h"
#include "ops/ops.h"

namespace tg::models::more {

using json = nlohmann::json;

// Merges cfg over defaults (the factory may be called with or without resolve()); unknown keys throw
// tg::Error naming the model and the key.
json options(const std::string& model, const json& defaults, const json& cfg);

// vocab (> 0: symbolic inputs) or in (dense input size), and out (0: = vocab), with the rules of
// CommonOptions::read (models/cell_model.h).
IoSizes read_io(const OptionReader& o);

// The input term of step t: rows of W [in, n] picked by the symbols (a column lookup of Wᵀ, no one-hot
// matmul), or x_t W for dense inputs. [B, n].
Var input_term(Graph& g, const Sequence& xs, int64_t t, Var W);

// The input mask of step t as a [B, 1] constant, or an empty Var when there is no mask or it is all ones.
Var step_mask(Graph& g, const Sequence& xs, int64_t t, DType dt);
// fresh where mask = 1, old where mask = 0 (the state is carried over on padded steps). An empty mask
// returns fresh.
Var carry(Var mask, Var fresh, Var old);

// [B, n]: the learned initial state h0 [n] broadcast over the batch, or zeros when h0 is empty.
Var initial_state(Graph& g, Var h0, int64_t B, int64_t n, DType dt);

// A [rows, cols] (or [n]) parameter value from doubles.
Tensor tensor(const Shape& s, const std::vector<double>& v, DType dt);

// n values drawn N(0, stddev²).
std::vector<double> normal_values(int64_t n, double stddev, Rng& rng);

}  // namespace tg::models::more
