// Which of Ollivier's three graph models (seed 003) is being trained, and where its parameters live:
// the GLNN (leaky, symbol-gated), the GNN (symbol-gated, not leaky) and the classical RNN (input weights
// rho, one transition per edge). The Riemannian steps read parameter values and the engine's gradients
// through this view; they never touch a model's graph code.
#pragma once
#include <cstdint>
#include <vector>

#include "core/params.h"
#include "models/ollivier.h"

namespace tg::riemannian {

enum class Kind { glnn, gnn, rnn };

struct Family {
  Kind kind = Kind::glnn;
  const models::ollivier::UnitGraph* graph = nullptr;
  int64_t N = 0, E = 0, A = 0, O = 0;  // units, edges (self-loops included), input and output alphabets
  // w [N, O], w0 [O]; gated: tau [A, E], tau0 [A, N]; rnn: tau [E], tau0 [N], rho [A, N].
  // start: V0 [N] (GLNN) or a0 [N] (GNN, RNN); absent when the model has no learned start state.
  ParamId w, w0, tau, tau0, rho, start;
  bool has_start = false;
  std::vector<int64_t> first_in;  // edges into unit j are [first_in[j], first_in[j+1]) (edges sorted by dst)

  bool leaky() const { return kind == Kind::glnn; }
  bool gated() const { return kind != Kind::rnn; }

  // Throws tg::Error unless the model is a float64 glnn, gnn or ollivier_rnn with symbolic inputs.
  static Family of(const models::Model& m);
};

}  // namespace tg::riemannian
