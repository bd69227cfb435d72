// Ollivier's training procedure (003 §5) as an optim::Optimizer, so it runs in the common trainer
// (clock, budgets, metrics, checkpoints, resume) like every other method.
//
// Data: one training and one validation sequence drawn from the task with the option data_seed (the
// paper trains on one sequence). Each iteration is one round: a w-step, then a (tau, start)-step, then
// a scoring of the validation sequence in bits with the 1/(t+2) uniform mixing (§7.1). At the
// initialisation w_i = 0, so B = 0 and the tau-metric would be only its damping: hence the w-step
// first. Each group has its own step size, 1/N at first; after a step the training log-likelihood is
// recomputed: if it went up the step is kept and the rate grows by 1.1, else the step is undone and
// the rate halved (§5.4). The best parameters over the trajectory are kept (early stopping) as the
// state vector "best_params"; the initialisation is scored too (pass 0), in the first iteration.
// The method draws no random numbers: the trainer's RNG is left alone.
#pragma once
#include <cmath>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/confidence.h"
#include "models/model.h"
#include "optim/optimizer.h"
#include "riemannian/family.h"
#include "riemannian/pass.h"
#include "riemannian/transition_step.h"
#include "riemannian/writing_step.h"
#include "tasks/task.h"

namespace tg::riemannian {

struct RiemannianOptions {
  WritingMethod writing = WritingMethod::qdh;
  TransitionMethod transition = TransitionMethod::rbpm;
  double eps = 1.0;        // the tau-metric's damping
  int64_t line_batch = 0;  // > 0: cut both sequences into lines, each from the start state, K per unroll (pass.h)
  uint64_t data_seed = 1;  // the training sequence; the validation sequence uses data_seed + 1000003
  int64_t patience = 0;    // stop after this many scorings without a better validation; 0 = never
  // Stop once the task's error rate is below this (distant XOR: a task whose error is a fraction of scored
  // targets) on the validation sequence and then on fresh sequences of at least kConfirmTargets scored
  // targets (Confirmation); < 0: never.
  double stop_error = -1;
};
// Every option with its default; reading names an unknown option or a bad value.
nlohmann::json riemannian_defaults();
RiemannianOptions riemannian_options_from_json(const nlohmann::json& options);
nlohmann::json to_json(const RiemannianOptions& o);

// The run's two sequences (B = 1 each).
struct Sequences {
  tasks::Batch train, valid;
};
Sequences draw_sequences(const tasks::Task& task, uint64_t data_seed);
// The §2 initialisation's data statistics of a training sequence, as model options (symbol_freq,
// symbol_freq_all) for the glnn, gnn and ollivier_rnn factories.
nlohmann::json statistics_options(const tasks::Task& task, const tasks::Batch& train);

// The validation code length in bits with Ollivier's mixing pi <- (1 - 1/(t+2)) pi + 1/(t+2) / |A|.
double mixed_bits(const std::vector<Tensor>& logits, const tasks::Batch& b);

// One validation scoring (metrics of a round).
struct Scoring {
  int64_t pass = 0;          // gradient passes so far
  double train_ll_bits = 0;  // training log-likelihood (no mixing), bits
  double valid_bits = 0;     // validation code length with the 1/(t+2) mixing, bits
  double regret = 0;         // valid_bits - the true generator's bits
  double error = 0;          // the task's error rate on the validation sequence
};

// A validation error below stop_error is one draw, and the first of many looks at the same sequence
// (every round scores it). The stop is taken only when sequences never trained on nor validated on,
// drawn with data_seed + 2,000,003, give an error below stop_error too: at least 10,000 scored targets
// (distant XOR: lines), so that the 95% interval around a 1% rate is about ±0.2%.
constexpr double kConfirmTargets = 10'000;
struct Confirmation {
  int64_t pass = -1;  // the pass count when it was scored; -1: never
  double error = NAN;
  double scored = 0;  // targets scored
};

class RiemannianOptimizer : public optim::Optimizer {
 public:
  // m: a float64 glnn, gnn or ollivier_rnn (tg::Error otherwise); it must outlive the optimizer, and
  // so must the task.
  RiemannianOptimizer(models::Model& m, const tasks::Task& task, RiemannianOptions options);
  // The corpora hold pointers into the object's own sequences.
  RiemannianOptimizer(const RiemannianOptimizer&) = delete;
  RiemannianOptimizer& operator=(const RiemannianOptimizer&) = delete;

  nlohmann::json step(optim::Objective& obj, ParamVec& theta, const tasks::Dataset& data, Rng& rng,
                      int64_t iteration) override;
  State state() const override;
  void restore(const State& s) override;
  std::string finished() const override;
  // With stop_error: success (a confirmed stop), the last validation error and the last confirmation
  // (stop_valid_*, stop_confirm_*, each with its pass).
  nlohmann::json summary_facts() const override;
  bool validates_itself() const override { return true; }  // every round scores the validation sequence
  const std::vector<tasks::Batch>& confirmation_sequences() const { return confirm_seqs_; }

  const Scoring& best() const { return best_; }
  const Scoring& last() const { return last_; }
  const ParamVec& best_params() const { return best_params_; }
  int64_t scorings() const { return scorings_; }
  double eta_w() const { return eta_w_; }
  double eta_tau() const { return eta_tau_; }
  int64_t rejected_w() const { return rejected_w_; }
  int64_t rejected_tau() const { return rejected_tau_; }
  const Sequences& sequences() const { return seq_; }
  const Confirmation& confirmation() const { return confirmation_; }
  // The task's error rate, and the targets it is over, on the confirmation sequences at the current
  // parameters (drawn on first use).
  ValidationScore score_confirmation();

 private:
  PassSums pass(Need need) const;
  void ensure(Need need);
  void try_step(const ParamVec& direction, double& eta, int64_t& rejected, Need next_need);
  Scoring score();
  // The last scoring's validation error is below stop_error and its confirmation held.
  bool confirmed_stop() const;
  // Wilson's 95% interval of the last confirmation; NaN when the error is not a fraction or none was made.
  Interval confirmation_interval() const;

  models::Model& m_;
  const tasks::Task& task_;
  RiemannianOptions o_;
  Family f_;
  Sequences seq_;
  Corpus train_data_, valid_data_;
  std::vector<double> eps_y_;
  double scored_symbols_ = 0;  // the training sequence's scored targets (Σ chi): the loss's denominator

  double eta_w_, eta_tau_;
  int64_t passes_ = 0, since_best_ = 0, rejected_w_ = 0, rejected_tau_ = 0, scorings_ = 0;
  RmsState rms_;
  Scoring best_, last_;
  ParamVec best_params_;
  Confirmation confirmation_;
  std::vector<tasks::Batch> confirm_seqs_;  // drawn on first use; each corpus points into this
  std::vector<Corpus> confirm_data_;
  bool error_is_a_fraction_ = false;  // of the validation sequence (pass.h); stop_error needs it
  // A trace at the current parameters; a step's trial pass already computes what the other group's
  // next step needs. Not saved: recomputing it from the parameters gives the same values.
  std::optional<PassSums> cur_;
};

}  // namespace tg::riemannian
