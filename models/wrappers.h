// Wrappers that build deeper or two-way models out of any cell (models/cell.h):
//   StackedCell: layer l reads layer l-1's readout at the same step (layer 0 reads x_t); the state is
//     the layers' states in order; the preact is the layers' preacts side by side; the readout is the
//     top layer's (or all layers', readout = "all").
//   Bidirectional (models/wrappers.cc): one cell (or stack) runs forward in time, another backward,
//     and the output layer reads [h_fwd_t, h_bwd_t]. On padded steps both directions carry their
//     state, so with trailing padding (variable lengths) the backward pass starts at each sequence's
//     last real step from its initial state; and the readout [h_fwd, h_bwd] itself is carried over a
//     padded step, so padding never changes an output (as for every causal model).
// Cell types by name: rnn (tanh / logistic / relu: option activation), irnn (relu, identity recurrence),
// lstm (standard, forget_bias), gru, scrn (context, alpha).
#pragma once
#include <memory>
#include <string>
#include <vector>

#include "models/cell.h"
#include "core/options.h"

namespace tg::models {

// The cell types make_named_cell knows.
const std::vector<std::string>& wrapper_cell_types();

// One cell of `type` with `hidden` units reading `in`; extra per-type options are read from `o` when
// present (activation, forget_bias, context, alpha).
std::unique_ptr<Cell> make_named_cell(const std::string& type, ParamBuilder& p, InputShape in, int64_t hidden,
                                      bool learned_h0, const OptionReader& o);

// One cell over the steps of xs in one direction (scope "<scope>=<t>"), reading x[t]; on padded steps
// it carries its state. Per step: its readout after the step and its pre-activation.
struct DirectionPass {
  std::vector<Var> readout, preact;
};
DirectionPass run_direction(Graph& g, const Cell& cell, const std::vector<StepInput>& x, const Sequence& xs,
                            bool forward, const std::string& scope);

class StackedCell final : public Cell {
 public:
  // Layers of the given sizes under scopes "l1", "l2", ...
  StackedCell(const std::string& type, ParamBuilder& p, InputShape in, const std::vector<int64_t>& sizes,
              bool learned_h0, bool readout_all, const OptionReader& o);
  State initial(Graph& g, int64_t batch) const override;
  Step step(Graph& g, const StepInput& x, const State& s) const override;
  Var readout(const State& s) const override;
  int64_t readout_size() const override;
  size_t layers() const { return layers_.size(); }

 private:
  State part(const State& s, size_t layer) const;
  std::vector<std::unique_ptr<Cell>> layers_;
  std::vector<size_t> offset_;  // first state part of each layer, then the total
  bool readout_all_;
};

}  // namespace tg::models
