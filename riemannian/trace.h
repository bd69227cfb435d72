// One pass of the engine over a single long sequence (Ollivier trains on one sequence, 003 §0), with
// everything the Riemannian steps read from it: the activities a^s, the output distributions pi, and,
// when asked, the engine's gradients and the adjoints B^s = d LL / d V^s at the tagged pre-activation
// nodes (003 §3, eq. 22: B is read as the adjoint of an intermediate node, never recomputed by hand).
//
// Indexing (the models' time convention, models/glnn.cc): state s = 0..T; step t = 0..T-1 reads input
// u_t, moves state t to state t+1 and predicts target y_t from state t+1. So the paper's "tau at time t
// acts on V^{t+1}" holds with the same t, and pi of state s = t+1 is stored at row t.
#pragma once
#include <cstdint>
#include <vector>

#include "core/params.h"
#include "models/model.h"
#include "riemannian/family.h"
#include "tasks/task.h"

namespace tg::riemannian {

enum class Need {
  value,    // LL and logits only
  writing,  // + gradient of w, w0
  all,      // + gradient of every parameter and the adjoints B
};

struct Trace {
  Need need = Need::value;     // what this trace holds
  int64_t T = 0, N = 0, O = 0;
  double ll = 0;               // Σ_t chi_t ln pi_t(y_t), nats (the objective (16))
  std::vector<int32_t> u, y;   // input and target symbol of step t
  std::vector<double> chi;     // loss weight of step t
  std::vector<double> a;       // [(T+1) N]: a^s (a^0 = tanh V0 for the GLNN, the start activities a0 otherwise)
  std::vector<double> sp;      // [(T+1) N]: ds/dV at state s = 1 - (a^s)²; 1 at s = 0 for the GNN/RNN (a0 is the state)
  std::vector<double> pi;      // [T O]: softmax of the logits of step t
  std::vector<Tensor> logits;  // per step [1, O] (for the task's scoring)
  std::vector<double> B;       // [(T+1) N] (Need::all): B^s = d LL / d V^s; B^0 = d LL / d start (0 without one)
  ParamVec grad;               // d LL / d θ (Need::writing: only w, w0 are filled)

  const double* a_at(int64_t s) const { return a.data() + s * N; }
  const double* B_at(int64_t s) const { return B.data() + s * N; }
};

// b must hold one sequence (B = 1) without input masks.
Trace trace(const models::Model& m, const Family& f, const tasks::Batch& b, Need need);

}  // namespace tg::riemannian
