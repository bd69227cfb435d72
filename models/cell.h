// Cell: one recurrent time step as a graph of generic ops, the unit every zoo model is built from.
// A cell owns ParamIds (added through a ParamBuilder), maps (input, state) to the next state, names
// the hidden pre-activation that structural damping attaches to, and says what the output layer
// reads. The state is a plain value (State{h, c}) passed in and returned, so wrappers (stacking,
// bidirectional, gated feedback) can drive any cell step by step. Unrolling, masks and the output
// layer live in cell_model.h.
#pragma once
#include <cstdint>
#include <map>
#include <memory>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "core/graph.h"
#include "core/site.h"
#include "models/model.h"
#include "models/param_builder.h"
#include "ops/ops.h"

namespace tg::models {

// What a cell reads at each step: `size` symbols (one index per sequence, looked up as a row of each
// input weight) or dense rows [B, size] (a matmul).
struct InputShape {
  int64_t size = 0;
  bool symbolic = false;
};

// The inputs of consecutive steps stacked, so that project() maps every step's input through an input
// weight (and bias) at once: one GEMM of n·B rows instead of n GEMMs of B rows (small products run far
// below a GEMM's peak), or one row lookup and one bias add for symbols, instead of n of each. Each step
// reads its block of rows of the result (a view).
struct StackedRows {
  Var rows;             // dense: [n·B, size], step `first` + i in rows [i·B, (i+1)·B)
  ops::Index symbols;   // or symbols: the n·B ids in that order
  int64_t batch = 0;    // B
  int64_t first = 0;    // the step whose rows come first
  // what each step's StepInput holds: a StepInput whose dense or symbols were replaced since is
  // projected on its own
  std::vector<int32_t> step_dense;
  std::vector<ops::Index> step_symbols;
  // x W (+ b) by the node ids of W and b (-1: none); with symbols, W + b by {W, -2 - b} (project_affine)
  std::map<std::pair<int32_t, int32_t>, Var> products;
};

// The input at one step: exactly one of symbols and dense is set.
struct StepInput {
  ops::Index symbols;  // B symbol ids in [0, size)
  Var dense;           // [B, size]
  Var symbol_keep;     // optional [B, 1] input-dropout factor on the looked-up rows (0 or 1/(1-p))
  std::shared_ptr<StackedRows> stacked;  // optional: dense is rows of step t of these
  int64_t t = 0;
};

// The input of step t of a batch as graph nodes of dtype dt, with its input-dropout factors when the
// batch carries them (Sequence::input_keep).
StepInput step_input(Graph& g, const Sequence& xs, int64_t t, DType dt);
// Steps [begin, end) of a batch, dense inputs stacked (StackedRows); symbols as step_input gives them.
std::vector<StepInput> step_inputs(Graph& g, const Sequence& xs, int64_t begin, int64_t end, DType dt);
// Per-step dense rows [B, size] (another layer's outputs, say) stacked as the inputs of steps first, ...
std::vector<StepInput> stacked_step_inputs(std::span<const Var> dense, int64_t first = 0);
// The same from rows already stacked [n·B, size], step first + i in rows [i·B, (i+1)·B).
std::vector<StepInput> stacked_rows_inputs(Var rows, int64_t batch, int64_t first = 0);

// x W for an input weight W [size, n]: a row lookup (gather_rows) for symbols, a matmul for dense rows
// (for stacked inputs and a W that is a leaf, the same for every step: W's product with all the steps'
// inputs, made once, and this step's rows of it).
Var project(Graph& g, const StepInput& x, ParamId w, Site site = Site::current());
Var project(const StepInput& x, Var w, Site site = Site::current());
// x W + b (b [n]; index -1 or an empty Var: no bias), the bias added once for all stacked steps while small.
Var project(Graph& g, const StepInput& x, ParamId w, ParamId b, Site site = Site::current());
Var project(const StepInput& x, Var w, Var b, Site site = Site::current());
// x W + b for all of x's steps at once, [n·B, size] stacked as the scans of ops/scan.cc read them, when the
// steps are consecutive rows of one StackedRows without input-dropout factors; empty otherwise.
Var project_all(Graph& g, std::span<const StepInput> x, ParamId w, ParamId b, Site site = Site::current());

// A cell's state parts, each [B, n]; every cell documents its layout (LSTM: {h, c}).
using State = std::vector<Var>;

struct Step {
  State state;  // the next state
  Var preact;   // [B, n]: the hidden pre-activation tagged "preact" (the structural-damping block)
};

class Cell {
 public:
  virtual ~Cell() = default;
  virtual State initial(Graph& g, int64_t batch) const = 0;                   // zeros or learned
  virtual Step step(Graph& g, const StepInput& x, const State& s) const = 0;  // one time step
  // All of x's steps at once from state s, for a cell with a fused recurrence (one node for the whole
  // sequence instead of ~10 a step: what a small model's step costs, issue 25 item 5): the steps' results
  // in order, the same as step() would give. Empty: this cell or these inputs have no fused form, and the
  // caller steps. Only called for batches without padding masks (whose steps carry the state over).
  virtual std::vector<Step> steps(Graph&, std::span<const StepInput>, const State&) const { return {}; }
  virtual Var readout(const State& s) const = 0;  // [B, readout_size()]: what the output layer reads
  virtual int64_t readout_size() const = 0;
  // [B, H]: the memory cell c of the LSTM family (what a stability penalty with on = cell reads);
  // empty for cells without one
  virtual Var memory(const State&) const { return {}; }
};

// A cell's initial state: zeros, or one learned vector per state part ("h0", "c0") broadcast over
// the batch (Sutskever's learned h_0, 000 §0).
class InitialState {
 public:
  InitialState() = default;
  InitialState(ParamBuilder& p, const std::vector<std::pair<std::string, int64_t>>& parts, bool learned);
  State make(Graph& g, int64_t batch) const;

 private:
  std::vector<int64_t> sizes_;
  std::vector<ParamId> learned_;  // empty: zeros
  DType dtype_ = DType::f32;
};

// One part of an initial state [batch, n]: the learned vector broadcast over the batch, or zeros when
// `learned` is empty.
Var initial_part(Graph& g, Var learned, int64_t batch, int64_t n, DType dt);

// Per-step input mask m [B, 1] (1 = a real step, 0 = padding): m ⊙ fresh + (1 - m) ⊙ old for every
// state part, so padded steps carry the state over unchanged.
State carry_over(Graph& g, const State& fresh, const State& old, const Tensor& mask);
// The same for a one-part state at step t of xs (fresh itself when the batch has no masks).
Var carry_over(Graph& g, Var fresh, Var old, const Sequence& xs, int64_t t);

}  // namespace tg::models
