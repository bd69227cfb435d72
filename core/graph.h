// Graph: the tape. An SSA vector of nodes, appended to as they are built (or rebuilt from a record of
// the same build, see rebuild()); several graphs may be alive at once.
//
// Evaluation is eager for "known" nodes: a node whose inputs all have values is evaluated the moment it
// is built, so errors (shapes at build, NaN with check_finite) surface at the line that caused them.
// Nodes that depend on a placeholder are "dynamic": they get a value only when a Segment runs. This is
// partial evaluation the tape way: when linearize appends a JVP or VJP segment, the parts of each rule
// that depend on primal values only (tanh's 1 - y², a softmax's probabilities) are evaluated once, and
// every later call re-runs just the dynamic nodes.
#pragma once
#include <cstdint>
#include <map>
#include <optional>
#include <span>
#include <string>
#include <unordered_map>
#include <vector>

#include "core/primitive.h"
#include "core/tensor.h"
#include "core/var.h"

namespace tg {

class ParamSet;
class ParamVec;
struct ParamId;

struct GraphOptions {
  bool check_finite = false;  // throw NonFiniteError naming the first node that yields NaN/Inf
  // Models may build a recurrence as one node (ops/scan.cc; models/cell.h, Cell::steps), its per-step states
  // slices of it: fewer nodes, but no node h_t that h_{t+1} is built from, so adjoints at per-step states
  // and pre-activations (total derivatives through later steps, Pascanu's Ω, Ollivier's metrics) are not
  // theirs. Off by default; the training objectives turn it on where nothing reads those.
  bool fuse_recurrences = false;
  bool operator==(const GraphOptions&) const = default;
};

struct Node {
  const Primitive* prim;
  std::vector<int32_t> in;
  Attrs attrs;
  Shape shape;
  DType dtype;
  Site site;
  int32_t scope;  // index into the graph's scope names
  bool dynamic;   // depends on a placeholder: evaluated by segments, not at build time
};

class Graph {
 public:
  explicit Graph(GraphOptions opt = {});
  Graph(const Graph&) = delete;  // Vars point at their graph
  Graph& operator=(const Graph&) = delete;
  ~Graph();

  // Leaves.
  Var input(Tensor value, Site site = Site::current());            // data or constants
  Var placeholder(const Shape& s, DType dt, Site site = Site::current());  // set by a Segment
  // Binds a ParamSet: g[p] is then a leaf holding a snapshot of parameter p (created on first use).
  void bind(const ParamSet& ps);
  // Binds a ParamSet at θ = `at` (its layout) instead of the set's own values: the graph copies θ
  // once, flat, and g[p] is a view of that copy. An objective evaluating at θ needs neither a copy
  // into the set nor one per parameter leaf. Call before the first g[p].
  void bind(const ParamSet& ps, const ParamVec& at);
  // As bind(ps, at), but the graph reads `at`'s buffer instead of copying it (a θ-sized copy saved per
  // evaluation: 1.5 ms of a 17 ms autoencoder step, docs/results/bench_autoencoder.md). The caller must
  // not write `at` in place while the graph lives (optimizers replace θ by a new vector instead);
  // builds with asserts check it when the graph is destroyed. Same dtype as the set only.
  void bind_shared(const ParamSet& ps, const ParamVec& at);
  // Binds with caller-made leaves standing for the parameters (one per parameter, same shapes), so a
  // model can be differentiated as a function of arbitrary inputs (the gradient-check harness does).
  void bind(const ParamSet& ps, std::span<const Var> leaves);
  Var operator[](ParamId p);
  const ParamSet* params() const { return params_; }
  std::vector<Var> param_leaves();  // one per parameter of the bound set, creating missing ones

  // Appends a node; runs the shape rule and, for known nodes, the kernel.
  Var add(const Primitive& prim, std::span<const Var> in, Attrs attrs, Site site,
          DType leaf_dtype = DType::f32);

  // During a rebuild, the nodes built so far (the recorded ones past the cursor are not part of the graph).
  int32_t size() const { return reusing_ ? cursor_ : static_cast<int32_t>(nodes_.size()); }
  const Node& node(int32_t id) const { return nodes_[id]; }
  bool has_value(int32_t id) const { return values_[id].defined(); }
  const Tensor& value(int32_t id) const;  // evaluates a pending node (see set_deferred) first
  void set_value(Var placeholder, Tensor value);  // placeholders only; checks shape and dtype
  void eval(int32_t id);                           // (re-)evaluates one node from its inputs
  // The next evaluation of pending node v writes its value into `destination` (same shape and dtype),
  // so a gradient lands in its part of a flat vector without a copy; the node's value then shares that
  // buffer. Returns false, placing nothing, for a node that has a value, is dynamic or is a leaf, or is
  // placed already (the first destination stays). A destination overlapping an input's value throws
  // when the node is evaluated.
  bool place(Var v, Tensor destination);
  uint64_t eval_count(int32_t id) const { return evals_[id]; }
  uint64_t total_evals() const { return total_evals_; }

  // Deferred evaluation, for transforms that rewrite what they build before any kernel runs (ad::vjp
  // turns a sum of per-step weight gradients into one product). While deferred, known nodes are
  // built without a value ("pending"); reading one evaluates it first, and evaluate_pending(roots)
  // evaluates every pending node the roots depend on. A pending node nothing reads never runs.
  bool set_deferred(bool on);  // returns the previous setting
  void evaluate_pending(std::span<const Var> roots);
  bool pending(int32_t id) const { return !nodes_[id].dynamic && !values_[id].defined(); }

  // Rebuilding (issue 25 item 5: building a small RNN's step costs as much as running it). rebuild()
  // keeps the recorded nodes and drops every value, parameter binding, tag and placement; the next build
  // then walks the record instead of appending: a node built as recorded (same primitive, inputs, shape
  // and dtype) takes the new attributes, site and scope and is evaluated as a new node would be, a leaf
  // takes its new value; at the first node that differs the record is cut and building appends from
  // there. The graph is then the one a fresh build makes, node for node, value for value, without the
  // cost of making nodes. Only a graph without placeholders can be rebuilt (Segments point into it).
  void rebuild();
  bool has_dynamic_nodes() const { return any_dynamic_; }
  int32_t reused_nodes() const { return reused_; }  // nodes the current build took from the record
  void release_values();  // drops every node's value and θ (a kept graph holds no tensors between builds)

  // Scopes name nodes in errors and dumps: "lstm/t=3".
  void push_scope(std::string name);
  void pop_scope();
  std::string scope_name(int32_t scope) const { return scopes_[scope]; }

  // A node that rules share across calls, keyed by the rule's tag and an input node: matmul's VJP
  // transposes a weight that every step of a recurrence multiplies by once, instead of letting every
  // step's product read it transposed (docs/results/engine_bench.md). `calls` counts the rule's calls
  // for the key; `node` is what the rule made for it (-1: nothing yet). rebuild() forgets every memo
  // with the rest of the build's state, and the build that follows makes the same ones again.
  struct Memo {
    int32_t calls = 0;
    int32_t node = -1;
  };
  Memo& memo(const void* tag, Var input);

  // Tags mark intermediates for curvature blocks and adjoint reads ("preact", "logits").
  void tag(Var v, const std::string& name);
  std::vector<Var> tagged(const std::string& name) const;

  const GraphOptions& options() const { return opt_; }
  std::string describe(int32_t id) const;  // "%12 = matmul %7 %3 : [32,128] f32  scope  file:line"
  std::string dump() const;

 private:
  Var push(Node n, Tensor value);
  // The recorded node at the cursor when it is a leaf of `prim` with this shape and dtype (and, for a
  // parameter, index); otherwise cuts the record and returns -1.
  int32_t reuse_leaf(const Primitive& prim, const Shape& s, DType dt, int64_t param = -1);
  void advance_cursor();
  void cut_record();  // a rebuild that differs from the record: drop the nodes from the cursor on
  void bind_checked(const ParamSet& ps, const ParamVec& at);  // bind(ps) and the checks of binding at θ
  void run_kernel(int32_t id) const;
  void evaluate_pending_from(std::span<const int32_t> roots) const;
  GraphOptions opt_;
  std::vector<Node> nodes_;
  // Values are a cache that reading a pending node fills in, hence mutable.
  mutable std::vector<Tensor> values_;
  mutable std::vector<uint64_t> evals_;
  mutable uint64_t total_evals_ = 0;
  mutable std::unordered_map<int32_t, Tensor> placed_;  // destinations of place(), until the node runs
  bool deferred_ = false;
  bool any_dynamic_ = false;
  bool reusing_ = false;   // a rebuild is walking the record (nodes_ past cursor_ are recorded, unbuilt)
  int32_t cursor_ = 0;
  int32_t reused_ = 0;
  int32_t scope_cursor_ = 1;  // a rebuild's next recorded scope name
  std::vector<std::string> scopes_{""};
  std::vector<int32_t> scope_stack_{0};
  std::unordered_map<std::string, std::vector<int32_t>> tags_;
  std::map<std::pair<const void*, int32_t>, Memo> memos_;  // a handful per graph: the shared weights
  const ParamSet* params_ = nullptr;
  std::vector<int32_t> param_leaf_;  // -1 until bound
  Tensor param_values_;              // θ from bind(ps, at), flat; empty: read the set's values
  // bind_shared's θ: a fingerprint of its bytes at bind time, compared in ~Graph when asserts are on
  // (the member exists in every build so that the class's layout does not depend on NDEBUG)
  std::optional<uint64_t> shared_fingerprint_;
};

// RAII scope: ScopeGuard s(g, "lstm/t", t) names nodes "outer/lstm/t=3".
class ScopeGuard {
 public:
  ScopeGuard(Graph& g, const std::string& name);
  ScopeGuard(Graph& g, const std::string& name, long index);
  ~ScopeGuard();
  ScopeGuard(const ScopeGuard&) = delete;
  ScopeGuard& operator=(const ScopeGuard&) = delete;

 private:
  Graph& g_;
};

}  // namespace tg
