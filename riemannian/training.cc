#include "riemannian/training.h"

#include <cmath>
#include <ctime>

#include <fmt/format.h>

#include "core/error.h"
#include "riemannian/family.h"
#include "riemannian/pass.h"
#include "riemannian/trace.h"
#include "tasks/ollivier_tasks.h"

namespace tg::riemannian {

double cpu_seconds() {
  timespec ts{};
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) + 1e-9 * static_cast<double>(ts.tv_nsec);
}

double mixed_bits(const std::vector<Tensor>& logits, const tasks::Batch& b) {
  // The task's cumulative regret with mixing, plus its true bits: the mixed code length itself.
  return tasks::ollivier::cumulative_regret(b, logits, /*smooth=*/true) + b.true_bits.at(0);
}

TrainResult train(models::Model& m, const tasks::Task& task, const tasks::Batch& train_seq,
                  const tasks::Batch& valid_seq, const TrainOptions& opt,
                  const std::function<void(const Scoring&)>& on_score,
                  const std::function<void(const TrainState&)>& on_checkpoint, const TrainState* resume) {
  const Family f = Family::of(m);
  if (!f.gated() && (opt.transition == TransitionMethod::rbpm || opt.transition == TransitionMethod::ruop))
    throw Error(fmt::format("transition method {} needs a gated model (glnn, gnn): for {} use qd-{}", name_of(opt.transition),
                            m.kind(), name_of(opt.transition)));
  ParamSet& ps = m.params();
  double start = cpu_seconds();
  double eta_w = 1.0 / static_cast<double>(f.N), eta_tau = eta_w;
  RmsState rms;
  TrainResult res;
  res.best.valid_bits = INFINITY;
  int64_t passes = 0, since_best = 0;
  int32_t newline = -1;
  const std::vector<std::string> alphabet = task.signature().alphabet;
  for (size_t k = 0; k < alphabet.size(); ++k)
    if (alphabet[k] == "\n") newline = static_cast<int32_t>(k);
  if (opt.line_batch > 0 && newline < 0)
    throw Error(fmt::format("line batching: task '{}' has no newline symbol to cut lines at", task.name()));
  const Corpus train_data = Corpus::of(train_seq, opt.line_batch, newline);
  const Corpus valid_data = Corpus::of(valid_seq, opt.line_batch, newline);
  const std::vector<double> eps_y = writing_damping(train_seq, f.O);
  auto pass = [&](Need need) { return run_pass(m, f, train_data, need, eps_y, opt.transition); };
  if (resume) {
    if (resume->params.size() != ps.values().size())
      throw Error(fmt::format("resume: the saved state has {} parameters, the model {}", resume->params.size(),
                              ps.values().size()));
    ps.set_values(resume->params);
    eta_w = resume->eta_w;
    eta_tau = resume->eta_tau;
    passes = resume->passes;
    since_best = resume->since_best;
    if (resume->rms.r.size() > 0) rms.r = resume->rms.r.clone();  // ParamVec copies share their buffer
    res = resume->result;
    start -= resume->seconds;
  }
  PassSums cur = pass(Need::writing);
  auto elapsed = [&] { return cpu_seconds() - start; };
  auto done = [&] { return elapsed() >= opt.budget_seconds || (opt.max_passes > 0 && passes >= opt.max_passes); };

  // cur: a trace at the current parameters. A step's trial pass already computes what the other
  // group's next step needs (the w-trial the adjoints, the tau-trial the w-gradient), so an accepted
  // step costs one engine pass; the results are the same as recomputing.
  auto ensure = [&](Need need) {
    if (static_cast<int>(cur.need) < static_cast<int>(need)) cur = pass(need);
  };
  // Proposes theta + eta D; keeps it if the training LL went up (x1.1), else undoes it (/2).
  auto try_step = [&](const ParamVec& D, double& eta, int64_t& rejected, Need next_need) {
    ParamVec saved = ps.values().clone();
    ParamVec next = saved.clone();
    next.axpy(eta, D);
    ps.set_values(next);
    PassSums trial = pass(next_need);
    ++passes;
    if (std::isfinite(trial.ll) && trial.ll > cur.ll) {
      eta *= 1.1;
      cur = std::move(trial);
    } else {
      ps.set_values(saved);
      eta /= 2;
      ++rejected;
    }
  };

  // Scores the validation sequence; false when training should stop (patience or target error reached).
  auto score = [&] {
    const ValidationScore v = score_corpus(m, f, task, valid_data);
    Scoring s;
    s.pass = passes;
    s.train_ll_bits = cur.ll / std::log(2.0);
    s.valid_bits = v.bits;
    s.regret = s.valid_bits - valid_seq.true_bits.at(0);
    s.error = v.error;
    s.eta_w = eta_w;
    s.eta_tau = eta_tau;
    s.seconds = elapsed();
    res.history.push_back(s);
    res.last = s;
    if (on_score) on_score(s);
    if (s.valid_bits < res.best.valid_bits) {
      res.best = s;
      res.best_params = ps.values().clone();
      since_best = 0;
    } else if (opt.patience > 0 && ++since_best >= opt.patience) {
      return false;
    }
    return !(opt.stop_error >= 0 && s.error < opt.stop_error);
  };

  auto checkpoint = [&] {
    if (!on_checkpoint) return;
    TrainState st;
    st.params = ps.values().clone();
    st.eta_w = eta_w;
    st.eta_tau = eta_tau;
    st.passes = passes;
    st.since_best = since_best;
    st.seconds = elapsed();
    if (rms.r.size() > 0) st.rms.r = rms.r.clone();
    st.result = res;
    if (st.result.best_params.size() == 0) st.result.best_params = ps.values().clone();
    on_checkpoint(st);
  };

  // The initialisation is scored too (pass 0), so every run has a best point; then one scoring per round.
  // A resumed run continues after its last scoring, unless that one had ended the run.
  bool go = true;
  if (!resume || res.history.empty()) {
    go = score();
  } else {
    const Scoring& s = res.history.back();
    go = !(opt.patience > 0 && since_best >= opt.patience) && !(opt.stop_error >= 0 && s.error < opt.stop_error);
  }
  while (go && !done()) {
    {  // w-step
      ensure(Need::writing);
      ParamVec D = writing_direction(f, ps, cur.grad, cur.writing, opt.writing);
      try_step(D, eta_w, res.rejected_w, Need::all);
    }
    if (!done()) {  // tau-step
      ensure(Need::all);
      ParamVec D = transition_direction(f, ps, cur.grad, cur.transition, opt.eps, &rms);
      try_step(D, eta_tau, res.rejected_tau, Need::writing);
    }
    go = score();
    if (opt.checkpoint_every > 0 && (res.history.size() - 1) % opt.checkpoint_every == 0 && go && !done()) checkpoint();
  }
  if (res.best_params.size() == 0) res.best_params = ps.values().clone();
  checkpoint();
  return res;
}

}  // namespace tg::riemannian
