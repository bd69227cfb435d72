#include "riemannian/optimizer.h"

#include <fmt/format.h>

#include <cmath>
#include <limits>

#include "core/error.h"
#include "core/options.h"
#include "models/ollivier.h"
#include "tasks/ollivier_tasks.h"

namespace tg::riemannian {

namespace {
constexpr const char* kWho = "riemannian";
constexpr uint64_t kValidSeedOffset = 1'000'003;
constexpr uint64_t kConfirmSeedOffset = 2'000'003;

const char* writing_name(WritingMethod w) { return w == WritingMethod::qdh ? "qdh" : "dh"; }

// The symbol that ends a line, or -1.
int32_t newline_symbol(const tasks::Task& task) {
  const std::vector<std::string> alphabet = task.signature().alphabet;
  for (size_t k = 0; k < alphabet.size(); ++k)
    if (alphabet[k] == "\n") return static_cast<int32_t>(k);
  return -1;
}
}  // namespace

nlohmann::json riemannian_defaults() {
  return {{"writing", "qdh"}, {"transition", "rbpm"}, {"eps", 1.0},      {"line_batch", 0},
          {"data_seed", 1},   {"patience", 0},        {"stop_error", -1.0}};
}

RiemannianOptions riemannian_options_from_json(const nlohmann::json& options) {
  const nlohmann::json j = merge_options(kWho, riemannian_defaults(), options, true);
  const OptionReader r(kWho, j);
  RiemannianOptions o;
  o.writing = writing_method(r.choice("writing", {"qdh", "dh"}));
  o.transition = transition_method(r.choice("transition", {"rbpm", "ruop", "qd-rbpm", "qd-ruop", "fb", "rms", "bptt"}));
  o.eps = r.number("eps", 0, std::numeric_limits<double>::infinity(), true, true);
  o.line_batch = r.count("line_batch");
  o.data_seed = static_cast<uint64_t>(r.count("data_seed"));
  o.patience = r.count("patience");
  o.stop_error = r.number("stop_error", -1, 1);
  return o;
}

nlohmann::json to_json(const RiemannianOptions& o) {
  return {{"writing", writing_name(o.writing)}, {"transition", name_of(o.transition)},
          {"eps", o.eps},                       {"line_batch", o.line_batch},
          {"data_seed", o.data_seed},           {"patience", o.patience},
          {"stop_error", o.stop_error}};
}

Sequences draw_sequences(const tasks::Task& task, uint64_t data_seed) {
  if (task.signature().alphabet.empty() || std::isnan(task.chance_level()))
    throw Error(fmt::format("{}: task '{}' is not one of Ollivier's (alphabet, music, distant_xor, anbn)", kWho,
                            task.name()));
  Rng train_rng(data_seed), valid_rng(data_seed + kValidSeedOffset);
  Sequences s{task.sample(1, train_rng), task.sample(1, valid_rng)};
  if (s.valid.true_bits.empty()) throw Error(fmt::format("{}: task '{}' has no true generator bits", kWho, task.name()));
  return s;
}

nlohmann::json statistics_options(const tasks::Task& task, const tasks::Batch& train) {
  const tasks::Signature sig = task.signature();
  std::vector<int32_t> targets, inputs;
  std::vector<double> chi;
  for (int64_t t = 0; t < train.steps(); ++t) {
    inputs.push_back((*train.inputs.symbols[t])[0]);
    targets.push_back((*train.targets.symbols[t])[0]);
    chi.push_back(train.targets.mask.empty() ? 1.0 : train.targets.mask[t].at(0));
  }
  return models::ollivier::statistics_options(targets, chi, inputs, sig.input_dim, sig.output_dim);
}

double mixed_bits(const std::vector<Tensor>& logits, const tasks::Batch& b) {
  // The task's cumulative regret with mixing, plus its true bits: the mixed code length itself.
  return tasks::ollivier::cumulative_regret(b, logits, /*smooth=*/true) + b.true_bits.at(0);
}

RiemannianOptimizer::RiemannianOptimizer(models::Model& m, const tasks::Task& task, RiemannianOptions options)
    : m_(m), task_(task), o_(options), f_(Family::of(m)), seq_(draw_sequences(task, options.data_seed)) {
  if (!f_.gated() && (o_.transition == TransitionMethod::rbpm || o_.transition == TransitionMethod::ruop))
    throw Error(fmt::format("transition method {} needs a gated model (glnn, gnn): for {} use qd-{}",
                            name_of(o_.transition), m.kind(), name_of(o_.transition)));
  const int32_t newline = newline_symbol(task);
  if (o_.line_batch > 0 && newline < 0)
    throw Error(fmt::format("line batching: task '{}' has no newline symbol to cut lines at", task.name()));
  train_data_ = Corpus::of(seq_.train, o_.line_batch, newline);
  valid_data_ = Corpus::of(seq_.valid, o_.line_batch, newline);
  eps_y_ = writing_damping(seq_.train, f_.O);
  for (int64_t t = 0; t < seq_.train.steps(); ++t)
    scored_symbols_ += seq_.train.targets.mask.empty() ? 1.0 : seq_.train.targets.mask[t].at(0);
  eta_w_ = eta_tau_ = 1.0 / static_cast<double>(f_.N);
  error_is_a_fraction_ = error_is_a_fraction(seq_.valid);
  if (o_.stop_error >= 0 && !error_is_a_fraction_)
    throw Error(fmt::format("{}: option stop_error needs a task whose error is a fraction of scored targets "
                            "(distant_xor); task '{}' scores a regret",
                            kWho, task.name()));
}

PassSums RiemannianOptimizer::pass(Need need) const {
  return run_pass(m_, f_, train_data_, need, eps_y_, o_.transition);
}

void RiemannianOptimizer::ensure(Need need) {
  if (!cur_ || static_cast<int>(cur_->need) < static_cast<int>(need)) cur_ = pass(need);
}

// Proposes θ + η D; keeps it if the training LL went up (η × 1.1), else undoes it (η / 2).
void RiemannianOptimizer::try_step(const ParamVec& direction, double& eta, int64_t& rejected, Need next_need) {
  ParamSet& ps = m_.params();
  const ParamVec saved = ps.values().clone();
  ParamVec next = saved.clone();
  next.axpy(eta, direction);
  ps.set_values(next);
  PassSums trial = pass(next_need);
  ++passes_;
  if (std::isfinite(trial.ll) && trial.ll > cur_->ll) {
    eta *= 1.1;
    cur_ = std::move(trial);
  } else {
    ps.set_values(saved);
    eta /= 2;
    ++rejected;
  }
}

ValidationScore RiemannianOptimizer::score_confirmation() {
  if (confirm_data_.empty()) {  // drawn whole before either member changes, so the corpora's pointers stay valid
    std::vector<tasks::Batch> seqs;
    Rng rng(o_.data_seed + kConfirmSeedOffset);
    for (double total = 0; total < kConfirmTargets;) {
      seqs.push_back(task_.sample(1, rng));
      const double n = scored_targets(seqs.back());
      if (n == 0) throw Error(fmt::format("{}: task '{}' drew a sequence with no scored target", kWho, task_.name()));
      total += n;
    }
    const int32_t newline = newline_symbol(task_);
    std::vector<Corpus> data;
    for (const tasks::Batch& seq : seqs) data.push_back(Corpus::of(seq, o_.line_batch, newline));
    confirm_seqs_ = std::move(seqs);  // a move keeps the buffer the corpora point into
    confirm_data_ = std::move(data);
  }
  // The sequences' rates weighted by their scored targets: the rate over all of them.
  ValidationScore all;
  double wrong = 0;
  for (const Corpus& c : confirm_data_) {
    const ValidationScore v = score_corpus(m_, f_, task_, c);
    all.bits += v.bits;
    wrong += v.error * v.scored;
    all.scored += v.scored;
  }
  all.error = all.scored > 0 ? wrong / all.scored : NAN;
  return all;
}

Scoring RiemannianOptimizer::score() {
  const ValidationScore v = score_corpus(m_, f_, task_, valid_data_);
  Scoring s;
  s.pass = passes_;
  s.train_ll_bits = cur_->ll / std::log(2.0);
  s.valid_bits = v.bits;
  s.regret = v.bits - seq_.valid.true_bits.at(0);
  s.error = v.error;
  last_ = s;
  if (scorings_ == 0 || s.valid_bits < best_.valid_bits) {
    best_ = s;
    best_params_ = m_.params().values().clone();
    since_best_ = 0;
  } else {
    ++since_best_;
  }
  ++scorings_;
  return s;
}

nlohmann::json RiemannianOptimizer::step(optim::Objective&, ParamVec& theta, const tasks::Dataset&, Rng&, int64_t) {
  ParamSet& ps = m_.params();
  ps.set_values(theta);
  ensure(Need::writing);  // the w-step's trace, which the initial scoring also reads
  nlohmann::json m = nlohmann::json::object();
  if (scorings_ == 0) {  // the initialisation, pass 0
    const Scoring s0 = score();
    m.update({{"initial_train_ll_bits", s0.train_ll_bits},
              {"initial_valid_bits", s0.valid_bits},
              {"initial_regret", s0.regret},
              {"initial_error", s0.error}});
  }
  try_step(writing_direction(f_, ps, cur_->grad, cur_->writing, o_.writing), eta_w_, rejected_w_, Need::all);
  ensure(Need::all);  // (tau, start)-step
  try_step(transition_direction(f_, ps, cur_->grad, cur_->transition, o_.eps, &rms_), eta_tau_, rejected_tau_,
           Need::writing);
  const Scoring s = score();
  theta = ps.values().clone();
  if (o_.stop_error >= 0 && s.error < o_.stop_error) {
    const ValidationScore c = score_confirmation();
    confirmation_ = {passes_, c.error, c.scored};
    // "stop_": the trainer's own success rule (stop_on_success) writes confirm_* of its own
    m.update({{"stop_confirm_error", c.error}, {"stop_confirm_targets", c.scored}});
    if (const Interval ci = confirmation_interval(); std::isfinite(ci.low))
      m["stop_confirm_interval"] = {ci.low, ci.high};
  }
  m.update({{"loss", -cur_->ll / scored_symbols_},  // nats per scored training symbol
            {"train_ll_bits", s.train_ll_bits},
            {"valid_bits", s.valid_bits},
            {"regret", s.regret},
            {"error", s.error},
            {"eta_w", eta_w_},
            {"eta_tau", eta_tau_},
            {"passes", passes_},
            {"rejected_w", rejected_w_},
            {"rejected_tau", rejected_tau_},
            {"best_valid_bits", best_.valid_bits},
            {"best_regret", best_.regret},
            {"best_error", best_.error},
            {"best_pass", best_.pass}});
  return m;
}

Interval RiemannianOptimizer::confirmation_interval() const {
  if (confirmation_.pass < 0) return {NAN, NAN};
  return wilson_interval(confirmation_.error, static_cast<int64_t>(confirmation_.scored));
}

bool RiemannianOptimizer::confirmed_stop() const {
  return o_.stop_error >= 0 && last_.error < o_.stop_error && confirmation_.pass == last_.pass &&
         confirmation_.error < o_.stop_error;
}

std::string RiemannianOptimizer::finished() const {
  if (scorings_ == 0) return {};
  if (o_.patience > 0 && since_best_ >= o_.patience)
    return fmt::format("no better validation score in {} rounds (option patience)", since_best_);
  if (confirmed_stop()) {
    const Interval ci = confirmation_interval();
    const std::string interval = std::isfinite(ci.low) ? fmt::format(", 95% in [{:.4g}, {:.4g}]", ci.low, ci.high) : "";
    return fmt::format("validation error {} below {} (option stop_error); confirmed on {} fresh scored targets: {:.4g}{}",
                       last_.error, o_.stop_error, confirmation_.scored, confirmation_.error, interval);
  }
  return {};
}

nlohmann::json RiemannianOptimizer::summary_facts() const {
  nlohmann::json facts = nlohmann::json::object();
  if (o_.stop_error < 0 || scorings_ == 0) return facts;
  facts["success"] = confirmed_stop();
  facts["stop_valid_error"] = last_.error;
  facts["stop_valid_pass"] = last_.pass;
  if (confirmation_.pass >= 0) {
    facts["stop_confirm_pass"] = confirmation_.pass;
    facts["stop_confirm_error"] = confirmation_.error;
    facts["stop_confirm_targets"] = confirmation_.scored;
    if (const Interval ci = confirmation_interval(); std::isfinite(ci.low))
      facts["stop_confirm_interval"] = {ci.low, ci.high};
  }
  return facts;
}

optim::Optimizer::State RiemannianOptimizer::state() const {
  State s;
  s.scalars = {{"eta_w", eta_w_},
               {"eta_tau", eta_tau_},
               {"passes", passes_},
               {"since_best", since_best_},
               {"rejected_w", rejected_w_},
               {"rejected_tau", rejected_tau_},
               {"scorings", scorings_}};
  auto put = [&](const char* prefix, const Scoring& sc) {
    s.scalars[fmt::format("{}_pass", prefix)] = sc.pass;
    s.scalars[fmt::format("{}_train_ll_bits", prefix)] = sc.train_ll_bits;
    s.scalars[fmt::format("{}_valid_bits", prefix)] = sc.valid_bits;
    s.scalars[fmt::format("{}_regret", prefix)] = sc.regret;
    s.scalars[fmt::format("{}_error", prefix)] = sc.error;
  };
  put("best", best_);
  put("last", last_);
  if (confirmation_.pass >= 0 && std::isfinite(confirmation_.error))
    s.scalars.update({{"confirm_pass", confirmation_.pass},
                      {"confirm_error", confirmation_.error},
                      {"confirm_targets", confirmation_.scored}});
  // deep copies: the running mean is updated in place by the next step
  if (best_params_.size() > 0) s.vectors.emplace_back("best_params", best_params_.clone());
  if (rms_.r.size() > 0) s.vectors.emplace_back("rms", rms_.r.clone());
  return s;
}

void RiemannianOptimizer::restore(const State& s) {
  auto get = [&](const std::string& key) -> const nlohmann::json& {
    if (!s.scalars.is_object() || !s.scalars.contains(key))
      throw Error(fmt::format("{}: the saved state has no '{}'", kWho, key));
    return s.scalars.at(key);
  };
  auto get_scoring = [&](const char* prefix) {
    Scoring sc;
    sc.pass = get(fmt::format("{}_pass", prefix)).get<int64_t>();
    sc.train_ll_bits = get(fmt::format("{}_train_ll_bits", prefix)).get<double>();
    sc.valid_bits = get(fmt::format("{}_valid_bits", prefix)).get<double>();
    sc.regret = get(fmt::format("{}_regret", prefix)).get<double>();
    sc.error = get(fmt::format("{}_error", prefix)).get<double>();
    return sc;
  };
  const double eta_w = get("eta_w").get<double>(), eta_tau = get("eta_tau").get<double>();
  if (!(eta_w > 0) || !(eta_tau > 0)) throw Error(fmt::format("{}: saved step sizes must be > 0", kWho));
  ParamVec best_params, rms;
  for (const auto& [name, v] : s.vectors) {
    if (name == "best_params") best_params = v;
    else if (name == "rms") rms = v;
    else throw Error(fmt::format("{}: unknown state vector '{}'", kWho, name));
  }
  const int64_t scorings = get("scorings").get<int64_t>();
  for (const char* counter : {"passes", "since_best", "rejected_w", "rejected_tau", "scorings"})
    if (get(counter).get<int64_t>() < 0) throw Error(fmt::format("{}: saved '{}' must be >= 0", kWho, counter));
  if ((scorings > 0) != (best_params.size() > 0))
    throw Error(fmt::format("{}: the saved state has {} scorings but {} best parameters", kWho, scorings,
                            best_params.size() > 0 ? "kept" : "no"));
  eta_w_ = eta_w;
  eta_tau_ = eta_tau;
  passes_ = get("passes").get<int64_t>();
  since_best_ = get("since_best").get<int64_t>();
  rejected_w_ = get("rejected_w").get<int64_t>();
  rejected_tau_ = get("rejected_tau").get<int64_t>();
  scorings_ = scorings;
  best_ = get_scoring("best");
  last_ = get_scoring("last");
  best_params_ = best_params.size() > 0 ? best_params.clone() : ParamVec{};
  // A state saved before confirmations existed has none. If that run had stopped on validation alone, it
  // is not stopped now: it trains one more round, which confirms the next scoring under stop_error.
  confirmation_ = {};
  if (s.scalars.contains("confirm_pass"))
    confirmation_ = {get("confirm_pass").get<int64_t>(), get("confirm_error").get<double>(),
                     get("confirm_targets").get<double>()};
  rms_.r = rms.size() > 0 ? rms.clone() : ParamVec{};  // ParamVec copies share their buffer
  cur_.reset();  // recomputed at the restored parameters
}

}  // namespace tg::riemannian
