// CellModel: a Model made of one Cell and an output layer, unrolled over a batch × time with
// per-step input masks, scopes ("lstm/t=3") and the "preact" / "logits" tags. Every core model is
// a CellModel; a new model family needs only a Cell and a cell_model_info(...) row in a register_*.cc.
#pragma once
#include <functional>
#include <memory>
#include <string>

#include <nlohmann/json.hpp>

#include "models/cell.h"
#include "models/init.h"
#include "models/model.h"
#include "core/options.h"
#include "models/output_layer.h"

namespace tg::models {

// The options every cell model shares: input and output sizes, output kind and bias, initial state,
// initialisation.
struct CommonOptions {
  IoSizes io;
  OutputKind output = OutputKind::softmax;
  bool output_bias = true;
  bool learned_h0 = false;
  init::InitOptions init;

  InputShape input() const { return {io.input_size(), io.symbolic()}; }
  static CommonOptions read(const OptionReader& o);
};

// The shared options' defaults ("vocab", "in", "out", "output", "output_bias", "learned_h0", "init",
// ...), overridden by and merged with the model's own. `square_recurrent` adds recurrent_init and
// spectral_radius (models whose recurrent weights are square matrices).
nlohmann::json cell_model_defaults(const nlohmann::json& own, bool square_recurrent);

// Builds a cell from its options; parameters go through `p` (scoped by the model's name).
using MakeCell = std::function<std::unique_ptr<Cell>(ParamBuilder& p, const CommonOptions& c, const OptionReader& o)>;

class CellModel final : public Model {
 public:
  CellModel(std::string kind, const nlohmann::json& cfg, DType dt, Rng& rng, const MakeCell& make_cell);
  const std::string& kind() const override { return kind_; }
  OutputKind output_kind() const override { return output_; }
  bool supports_dropout() const override { return true; }
  int64_t readout_size() const override { return cell_->readout_size(); }
  Outputs unroll(Graph& g, const Sequence& xs) const override;
  bool can_unroll_steps() const override { return true; }
  Outputs unroll_steps(Graph& g, const Sequence& xs, int64_t begin, int64_t end, std::vector<Var>& state) const override;
  Var readout(const std::vector<Var>& state) const override { return cell_->readout(state); }
  const Cell& cell() const { return *cell_; }

 private:
  std::string kind_;
  OutputKind output_;
  std::unique_ptr<Cell> cell_;
  OutputLayer head_;
};

// A registry row whose factory builds a CellModel.
ModelInfo cell_model_info(std::string name, std::string description, std::string seed,
                          const nlohmann::json& own_defaults, bool square_recurrent, MakeCell make_cell);

// Unrolls any cell and output layer: for each step t (scope "<scope>/t=<t>"), the cell's step, the
// input mask's carry-over, the readout and the logits; tags "preact" and "logits".
Outputs unroll_cell(Graph& g, const Cell& cell, const OutputLayer& head, const Sequence& xs, const IoSizes& io,
                    const std::string& scope);

// Steps [begin, end) of unroll_cell from state `s` (empty: the cell's initial state); `s` becomes
// the state after step end - 1. In a graph with GraphOptions::fuse_recurrences, a cell with a fused
// recurrence (Cell::steps) runs it as one node, its per-step states slices of it.
Outputs unroll_cell_steps(Graph& g, const Cell& cell, const OutputLayer& head, const Sequence& xs, const IoSizes& io,
                          const std::string& scope, int64_t begin, int64_t end, State& s);

// Throws tg::Error naming the model when a batch does not fit its input sizes.
void check_sequence(const Sequence& xs, const IoSizes& io, const std::string& model);

}  // namespace tg::models
