// Ollivier's training procedure (003 §5): alternate a w-step and a (tau, start)-step, starting with a
// w-step (at the initialisation w_i = 0, so B = 0 and the tau-metric would be only its damping). Each
// group has its own step size, 1/N at first; after a step the training log-likelihood is recomputed:
// if it went up the step is kept and the rate grows by 1.1, else the step is undone and the rate
// halved (§5.4). After each tau-step the validation sequence is scored in bits with the 1/(t+2)
// uniform mixing (§7.1); the best parameters over the trajectory are kept (early stopping).
#pragma once
#include <functional>
#include <string>
#include <vector>

#include "models/model.h"
#include "riemannian/transition_step.h"
#include "riemannian/writing_step.h"
#include "tasks/task.h"

namespace tg::riemannian {

struct TrainOptions {
  WritingMethod writing = WritingMethod::qdh;
  TransitionMethod transition = TransitionMethod::rbpm;
  double eps = 1.0;              // the tau-metric's damping
  double budget_seconds = 60;    // CPU time of the whole run (training and validation scoring)
  int64_t max_passes = 0;        // gradient passes (w-steps + tau-steps); 0 = no limit
  int64_t patience = 0;          // stop after this many scorings without a better validation; 0 = never
  double stop_error = -1;        // stop once the task's error rate is below this (distant XOR); < 0: never
  int64_t line_batch = 0;        // > 0: cut both sequences into lines, each from the start state, K per unroll (pass.h)
  int64_t checkpoint_every = 0;  // rounds (w-step, tau-step, scoring) between on_checkpoint calls; 0: only at the end
};

struct Scoring {
  int64_t pass = 0;              // gradient passes so far
  double seconds = 0;            // CPU seconds so far
  double train_ll_bits = 0;      // training log-likelihood (no mixing), bits
  double valid_bits = 0;         // validation code length with the 1/(t+2) mixing, bits
  double regret = 0;             // valid_bits - the true generator's bits
  double error = 0;              // the task's error rate on the validation sequence
  double eta_w = 0, eta_tau = 0;
};

struct TrainResult {
  Scoring best;                  // the scoring with the lowest validation bits
  Scoring last;
  std::vector<Scoring> history;
  ParamVec best_params;
  int64_t rejected_w = 0, rejected_tau = 0;
};

// Everything the loop needs to continue a run exactly. The current trace is not kept: it is recomputed
// from the parameters (the loop is deterministic and draws no random numbers, so there is no RNG state).
struct TrainState {
  ParamVec params;              // the current parameters
  double eta_w = 0, eta_tau = 0;
  int64_t passes = 0, since_best = 0;
  double seconds = 0;           // CPU seconds of the run so far
  RmsState rms;
  TrainResult result;           // history, best, best_params, rejected counts so far
};

// Trains m (f64 glnn / gnn / ollivier_rnn) on one training sequence, scored on one validation
// sequence of the same task. on_score (may be empty) sees every scoring as it happens; on_checkpoint
// (may be empty) gets the state every opt.checkpoint_every rounds and when the run ends. With resume,
// the run continues from that state (same model, data and options, except the stopping rules).
TrainResult train(models::Model& m, const tasks::Task& task, const tasks::Batch& train_seq,
                  const tasks::Batch& valid_seq, const TrainOptions& opt,
                  const std::function<void(const Scoring&)>& on_score = {},
                  const std::function<void(const TrainState&)>& on_checkpoint = {}, const TrainState* resume = nullptr);

// The validation code length in bits with Ollivier's mixing pi <- (1 - 1/(t+2)) pi + 1/(t+2) / |A|.
double mixed_bits(const std::vector<Tensor>& logits, const tasks::Batch& b);

double cpu_seconds();  // this process's CPU time

}  // namespace tg::riemannian
