// The model interface: a model owns a ParamSet and unrolls itself over a batch of sequences as a
// graph of generic ops. No model contains derivative code; gradients, Gauss-Newton and Hessian
// products come from the engine.
#pragma once
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/graph.h"
#include "core/options.h"
#include "core/params.h"
#include "ops/ops.h"
#include "tasks/batch.h"

namespace tg::models {

// The data types models read live in the data layer (tasks/batch.h).
using tasks::OutputKind;
using tasks::Sequence;
using tasks::output_kind_name;

struct Outputs {
  std::vector<Var> logits;  // per step [B, out]: pre-nonlinearity outputs, tag "logits"
  // [T·B, out]: every step's logits in one node when one product made them (the steps' `logits` are its
  // row blocks); empty otherwise. matching_loss(kind, outputs, ...) and its Gauss-Newton block
  // (scored_logits) read it when every step is scored, so code that changes `logits` after the unroll
  // must clear it.
  Var logits_all;
  std::vector<Var> preact;  // per step [B, H]: hidden pre-activations (structural damping), tag "preact"
  std::vector<Var> hidden;  // per step [B, H]: the state read by the output layer
  Var initial;              // [B, H]: that readout of the initial state (cell models; else empty)
  // Deep stacks: every recurrent layer's state, one sequence per layer and direction (per step [B, H_l],
  // padded steps as the cell leaves them), which the norm-stabilizer reads instead of `hidden`.
  std::vector<std::vector<Var>> layer_states;
  // One-layer cell models with a memory cell (the LSTM family): c_t per step [B, H] and c before the
  // first step (a stability penalty with on = cell reads these); empty otherwise.
  std::vector<Var> memory;
  Var initial_memory;

  // Appends one step: pre-activation u, state h, logits z; tags u "preact" and z "logits" (what
  // curvature blocks and adjoint reads look for).
  void record(Graph& g, Var u, Var h, Var z) {
    g.tag(u, "preact");
    g.tag(z, "logits");
    preact.push_back(u);
    hidden.push_back(h);
    logits.push_back(z);
  }
};

// A model's input and output sizes: symbolic inputs (vocab > 0: one index in [0, vocab) per sequence
// and step) or dense inputs [B, in]; `out` output units. Data pipelines and samplers read these.
struct IoSizes {
  int64_t vocab = 0;
  int64_t in = 0;
  int64_t out = 0;
  bool symbolic() const { return vocab > 0; }
  int64_t input_size() const { return symbolic() ? vocab : in; }
};

// vocab (> 0: symbolic inputs) or in (dense input size), and out (0: = vocab, next-symbol
// prediction), read from a model's options; exactly one of vocab and in must be set.
IoSizes read_io_sizes(const OptionReader& o);

class Model {
 public:
  virtual ~Model() = default;
  virtual const std::string& kind() const = 0;  // registry name
  virtual Outputs unroll(Graph& g, const Sequence& xs) const = 0;  // binds params() into g
  virtual OutputKind output_kind() const = 0;
  // Whether unroll applies Sequence::input_keep / readout_keep (dropout on non-recurrent connections).
  virtual bool supports_dropout() const { return false; }
  virtual int64_t readout_size() const { return 0; }  // width of what the output layer reads (dropout masks)
  // Units per step that output_dropout masks (Sequence::readout_keep's width): what the output layer
  // reads, or in a deep stack every layer's output on its way up (deep_blstm).
  virtual int64_t dropout_units() const { return readout_size(); }
  // Rematerialisation (gradient checkpointing, core/remat.h) needs the unroll cut into segments: a model that can builds
  // steps [begin, end) alone from `state`, the state before step `begin` (empty: the initial state,
  // built from the parameters), and leaves the state after step end - 1 in `state`. The nodes, scopes
  // and tags are those unroll builds for the same steps. Binds params() into g.
  virtual bool can_unroll_steps() const { return false; }
  virtual Outputs unroll_steps(Graph& g, const Sequence& xs, int64_t begin, int64_t end,
                               std::vector<Var>& state) const;
  // What the output layer reads from a state (Outputs::hidden of the step that produced it).
  virtual Var readout(const std::vector<Var>& state) const;
  const IoSizes& io() const { return io_; }
  ParamSet& params() { return params_; }
  const ParamSet& params() const { return params_; }

 protected:
  explicit Model(DType dt) : params_(dt) {}
  ParamSet params_;
  IoSizes io_;
};

// Everything a factory may read: sizes, activation, initialisation etc. as JSON (so the CLI and
// config files can set any option), plus the dtype and a seeded RNG for initialisation.
using Factory = std::function<std::unique_ptr<Model>(const nlohmann::json& cfg, DType dt, Rng& rng)>;

struct ModelInfo {
  std::string name;         // "rnn", "lstm", "mlstm", ...
  std::string description;  // one line
  std::string seed;         // which seed document(s): "000, 001"
  nlohmann::json defaults;  // every option with its default value
  Factory make;
};

const std::vector<ModelInfo>& registry();
const ModelInfo& find(const std::string& name);  // throws tg::Error naming the known models
// Merges user options over the defaults; unknown keys are an error naming the key and the model.
nlohmann::json resolve(const ModelInfo& info, const nlohmann::json& user);

}  // namespace tg::models
