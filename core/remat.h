// Rematerialisation, or gradient checkpointing: √T-memory differentiation of a computation that is
// a chain of segments, such as a recurrent network unrolled over T steps and cut into S segments of
// about T / S steps. (Named remat because "checkpoint" in tapegrad means a saved training state.)
//
// Why not a mode of Linearization: a Linearization keeps the whole primal tape (every value of every
// step) so that products replay only derivative nodes; its memory grows with T. Freeing values inside
// one tape and re-evaluating them would fight the engine's design (values are the cache that makes
// "known" nodes free, and the AD transforms read them while they build). Instead each segment gets a
// graph of its own, built by the caller's SegmentBuilder from the state before it and the parameters,
// and dropped when the segment is done. The forward pass keeps only the S boundary states; every
// product rebuilds one segment at a time and differentiates it with the ordinary transforms
// (ad::jvp / ad::vjp, whose rules emit graph nodes), chaining segments through the state:
//   gradient: reverse sweep; a segment's seeds are its loss part and the cotangent of its end state.
//   JVP:      forward sweep; a segment's inputs' tangents are v and its start state's tangent.
//   GN:       forward sweep for the boundary state tangents, then a reverse sweep in which each
//             segment computes J v at its block nodes, H J v through its part of the head, and the
//             VJP (seeds: H J v and the end state's cotangent).
//   Hessian:  the gradient's reverse sweep, differentiated forward along v segment by segment.
// Peak memory is one segment's graph (with its derivative nodes) plus the boundary states: with
// S ≈ √T, O(√T) instead of O(T). The price is recomputation: the primal of every segment is built
// again by the gradient (once) and by each GN or Hessian product (twice: the forward tangent sweep and
// the reverse sweep), where a Linearization builds it once and replays only derivative nodes.
//
// Curvature blocks must be separable by segment: the head is the sum of the segments' head parts and
// each part reads only its own segment's block nodes, so H is block-diagonal across segments (true of
// a loss summed over steps and of structural damping's per-step head; not of the empirical Fisher's
// squared per-sequence loss, which a caller must reject).
#pragma once
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <span>
#include <vector>

#include "core/graph.h"
#include "core/linearize.h"
#include "core/params.h"

namespace tg::ad {

// What a segment builds in its own graph.
struct SegmentBuilt {
  std::vector<Var> state;     // the state after the segment (the next segment's input; unused after the last)
  Var loss;                   // scalar: this segment's part of the loss (the total is the sum); may be empty
  std::vector<Block> blocks;  // this segment's part of each curvature block (the same number for every segment)
  std::vector<Var> outputs;   // nodes whose values the forward pass keeps (per-step outputs for metrics)
};

// Builds segment `segment` in `g`, whose bound ParamSet's leaves hold the parameters. `state` holds
// the state before the segment as leaves; it is empty for segment 0, which builds the initial state.
using SegmentBuilder = std::function<SegmentBuilt(Graph& g, int64_t segment, std::span<const Var> state)>;

class Remat {
 public:
  // Runs the forward pass (value, outputs, boundary states) at the ParamSet's current values, which
  // are copied: later changes to the ParamSet do not affect this object. `ps` must outlive it.
  Remat(const ParamSet& ps, int64_t segments, SegmentBuilder build, GraphOptions options = {});

  double value() const { return value_; }
  int64_t segments() const { return segments_; }
  const std::vector<Tensor>& outputs() const { return outputs_; }
  size_t blocks() const { return at_count_.size(); }
  // The most nodes one segment's graph held (primal and derivative nodes): what bounds the memory.
  int32_t max_graph_nodes() const { return max_nodes_; }
  int64_t max_graph_bytes() const { return max_bytes_; }  // the most value bytes one segment's graph held

  // Products over the ParamSet's layout (tangents and results are ParamVecs).
  const ParamVec& grad();                                   // d loss / d θ (cached)
  std::vector<Tensor> jvp(const ParamVec& v, size_t block);  // tangents at every segment's block nodes, in order
  ParamVec vjp(size_t block, std::span<const Tensor> u);     // u: one cotangent per block node, in that order
  ParamVec gnvp(const ParamVec& v, size_t block);            // J_atᵀ H_head J_at v
  ParamVec hvp(const ParamVec& v);                           // H v

 private:
  struct Rebuilt {
    std::unique_ptr<Graph> g;
    std::vector<Var> params, state_in;
    SegmentBuilt out;
    std::vector<Var> wrt() const;  // params, then state_in
  };
  Rebuilt rebuild(int64_t s);
  void done(const Rebuilt& r);  // bookkeeping before a segment's graph is dropped
  std::vector<Var> inputs(Rebuilt& r, std::span<const Tensor> values);  // leaves in r's graph (empty: zero)
  // Tangents of every boundary state along v (index s: the state entering segment s; [0] is empty).
  std::vector<std::vector<Tensor>> state_tangents(const ParamVec& v);
  std::vector<Tensor> parts(const ParamVec& v) const;  // checks the layout
  void accumulate(ParamVec& acc, std::span<const Var> param_derivs) const;
  void check_block(size_t block) const;

  const ParamSet* ps_;
  int64_t segments_;
  SegmentBuilder build_;
  GraphOptions options_;
  std::vector<Tensor> theta_;                 // the parameters' values at construction
  std::vector<std::vector<Tensor>> boundary_;  // [s]: the state entering segment s ([0] is empty)
  std::vector<std::vector<size_t>> at_count_;  // [block][s]: block nodes in segment s
  std::vector<Tensor> outputs_;
  std::optional<ParamVec> grad_;
  double value_ = 0;
  int32_t max_nodes_ = 0;
  int64_t max_bytes_ = 0;
};

// Bytes held by a graph's node values (a view counts its own size): the tape's memory.
int64_t value_bytes(const Graph& g);

// round(√T), at least 1: the classical segment count. Peak memory is about S·(one state) + (T/S)·(one
// step's tape), least at S = √(T · step/state); √T assumes the two are alike. A recurrent step's tape
// (gates, derivative nodes) is far larger than its state, so more segments save more memory there.
int64_t sqrt_segments(int64_t steps);

}  // namespace tg::ad
