// The one training loop: a model, a task and any optimizer (optim::Optimizer: Hessian-free, the
// first-order family, L-BFGS, Ollivier's Riemannian methods) built from a RunConfig; the trainer owns
// the clocks and budgets, validation, the progress line, metrics (DIR/metrics.jsonl), signals, atomic
// checkpoints (DIR/checkpoint.npz) and exact resume for all of them.
#pragma once
#include <string>

#include "tools/run_checkpoint.h"
#include "tools/run_config.h"
#include "tools/run_setup.h"

namespace tg::cli {

struct TrainOptions {
  std::string out_dir;
  bool resume = false;
  bool quiet = false;
};
// Returns the process exit code: 0 done (step limit, a budget, the success criterion or the
// optimizer's own stopping rule), 3 the run can no longer move (checkpoint saved), 130 / 143
// interrupted by SIGINT / SIGTERM (checkpoint saved).
int train(RunConfig cfg, const TrainOptions& opt);

}  // namespace tg::cli
