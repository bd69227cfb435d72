// tapegrad train / eval / sample: training runs of the model zoo on the tasks, and their use.
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <cerrno>
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <optional>
#include <random>

#include "core/error.h"
#include "models/temporal_rbm_objective.h"
#include "core/input_file.h"
#include "core/json.h"
#include "ops/blas.h"
#include "models/network.h"
#include "tasks/idx.h"
#include "tasks/task_file.h"
#include "tasks/text.h"
#include "tasks/reaching.h"
#include "tools/cli_checks.h"
#include "tools/commands.h"
#include "tools/config_diff.h"
#include "tools/loaded_run.h"
#include "tools/run_limits.h"
#include "tools/trainer.h"

namespace tg::cli {

namespace {
struct TrainArgs {
  std::string config, model, task, data, optimizer, out;
  std::vector<std::string> sets;
  std::optional<uint64_t> seed;  // 0 is a seed like any other, as in --set seed=0
  int64_t steps = -1;
  double max_seconds = -1;
  double cpu_budget = -1;
  int threads = -1;
  bool resume = false, quiet = false;
};

// The options of `file` over those of `run`, as --set would put them: an option inside model_options,
// optimizer_options etc. is replaced whole (a schedule object is never merged with the stored expanded
// one), and null is a value, not a deletion.
void overlay_options(nlohmann::json& run, const nlohmann::json& file) {
  for (const auto& [key, value] : file.items()) {
    if (value.is_object() && run.contains(key) && run[key].is_object())
      for (const auto& [option, v] : value.items()) run[key][option] = v;
    else
      run[key] = value;
  }
}

RunConfig resolve_train_config(const TrainArgs& a) {
  nlohmann::json j = nlohmann::json::object();
  if (a.resume) {
    // config.json is a readable copy of the checkpoint's config: a lost one does not end the run
    const std::string copy = a.out + "/config.json", ckpt = a.out + "/checkpoint.npz";
    if (!std::filesystem::exists(ckpt)) throw Error(fmt::format("--resume: no checkpoint at {} (nothing to continue)", ckpt));
    if (!std::filesystem::exists(copy)) {
      std::fprintf(stderr, "train: %s is missing; resuming with the config stored in %s\n", copy.c_str(), ckpt.c_str());
      j = read_checkpoint_config(ckpt);
    } else {
      j = read_json_file(copy);
    }
    if (!j.is_object()) throw Error(fmt::format("train --resume: {} must hold a JSON object of options", copy));
  }
  if (!a.config.empty()) {
    nlohmann::json file = read_json_file(a.config);
    if (!file.is_object()) throw Error(fmt::format("config file '{}' must hold a JSON object of options", a.config));
    // on --resume, over the run's own options ({"steps": 5} changes the steps); else over the defaults
    if (a.resume) overlay_options(j, file);
    else j = std::move(file);
  }
  if (!a.model.empty()) j["model"] = a.model;
  if (!a.task.empty()) j["task"] = a.task;
  if (!a.data.empty()) {
    // --data names the file of task 'text' or of an image task ('images', 'image_classes'); without a
    // task, an IDX file (images) or a text file decides which
    // a feedforward network reads images: its data file is read as IDX whatever it starts with, so a
    // wrong file is named as not an IDX file rather than as too short a text
    const bool network = j.contains("model") && j["model"].is_string() && models::find_network(j["model"]);
    if (!j.contains("task")) j["task"] = network || tasks::looks_like_idx(a.data) ? "images" : "text";
    const bool images = j["task"] == "images" || j["task"] == "image_classes";
    const bool corpus = j["task"] == "phonemes" || j["task"] == "speech_frames";  // made by scripts/speech_corpus.sh
    if (j["task"] != "text" && !images && !corpus)
      throw Error(fmt::format("train: --data {} is a file for task 'text' or 'images' (or the corpus directory of tasks "
                              "'phonemes' and 'speech_frames'), but the task is {} ({}); drop one of them (task files are for eval --data)",
                              a.data, j["task"].dump(), a.task.empty() ? "from the config" : "--task"));
    j["task_options"][corpus ? "dir" : "file"] = a.data;
  }
  if (!a.optimizer.empty()) j["optimizer"] = a.optimizer;
  if (a.seed) j["seed"] = *a.seed;
  if (a.steps >= 0) j["steps"] = a.steps;
  if (a.max_seconds >= 0) j["max_seconds"] = a.max_seconds;
  if (a.cpu_budget >= 0) j["cpu_budget"] = a.cpu_budget;
  if (a.threads >= 0) j["threads"] = a.threads;
  for (const std::string& s : a.sets) apply_set(j, s);
  return run_config_from_json(j, a.config.empty() ? "options" : a.config);
}

// Target characters outside a text run's vocabulary all map to one symbol that training never saw as a
// target, so each costs ~20+ bits: a text with curly quotes or digits the training text lacked looks
// far worse than the model is. Counted over the sequences evaluate() scores (in order, as it does),
// and only when there are any, their bits apart from the known characters' (a second pass).
struct UnknownCharacters {
  int64_t targets = 0, unknown = 0;
  double bits_known = 0, bits_unknown = 0;
};
UnknownCharacters unknown_characters(models::ModelObjective& obj, const ParamVec& theta,
                                     const tasks::text::TextTask& task, int64_t max_sequences) {
  UnknownCharacters u;
  const int32_t unk = task.corpus().vocab().unknown();
  const int64_t total = std::min(task.num_sequences(), max_sequences), chunk = 500;  // evaluate()'s chunks
  auto each_target = [&](const tasks::Batch& b, auto&& f) {
    for (int64_t t = 0; t < b.steps(); ++t)
      for (int64_t s = 0; s < b.size(); ++s)
        if (b.targets.mask.empty() || b.targets.mask[t].at(s) != 0) f(t, s, (*b.targets.symbols[t])[s]);
  };
  for (int64_t first = 0; first < total; first += chunk)
    each_target(task.sequences(first, std::min(chunk, total - first)), [&](int64_t, int64_t, int32_t y) {
      ++u.targets;
      u.unknown += y == unk;
    });
  if (u.unknown == 0) return u;
  for (int64_t first = 0; first < total; first += chunk) {
    const tasks::Batch b = task.sequences(first, std::min(chunk, total - first));
    const std::vector<Tensor> logits = obj.evaluate(theta, b)->output_values();
    each_target(b, [&](int64_t t, int64_t s, int32_t y) {
      const int64_t V = logits[t].shape()[1];
      double top = -INFINITY, z = 0;
      for (int64_t k = 0; k < V; ++k) top = std::max(top, logits[t].at(s * V + k));
      for (int64_t k = 0; k < V; ++k) z += std::exp(logits[t].at(s * V + k) - top);
      const double bits = (std::log(z) + top - logits[t].at(s * V + y)) / std::log(2.0);
      (y == unk ? u.bits_unknown : u.bits_known) += bits;
    });
  }
  return u;
}
// eval of a feedforward network on images: the data set's measure (squared reconstruction error per
// image, or the fraction misclassified) and the loss (cross-entropy per pixel, or per image), on the
// training part and the test part (or on --data / --task instead), every image unless -n limits it.
int eval_images(LoadedRun& r, const std::string& dir, const std::string& data, const std::string& task, int64_t count) {
  const RunConfig& cfg = r.run.cfg;
  struct Part {
    std::string what;
    const tasks::Dataset* data;
  };
  std::vector<Part> parts;
  std::vector<std::unique_ptr<tasks::Dataset>> owned;
  if (!data.empty() || !task.empty()) {
    std::string name = task.empty() ? cfg.task : task;
    nlohmann::json o = nlohmann::json::object();
    if (!data.empty()) {  // a user's IDX file, whole, scored like the run's own images
      if (cfg.task == "fashion_mnist_classes" || cfg.task == "image_classes")
        throw Error(fmt::format("eval --data: run {} classifies images, and an IDX image file alone has no labels (to "
                                "score labelled images, train with task_options.test_file and test_labels)",
                                dir));
      name = "images";
      o = {{"file", data}, {"test_file", data}};
    } else {  // another image task: the run's options that it has too (seed, dir, ...)
      for (const auto& [key, value] : cfg.task_options.items())
        if (tasks::find(name).defaults.contains(key) && key != "part") o[key] = value;
    }
    for (const char* part : {"train", "test"}) {
      if (!data.empty() && std::string(part) == "train") continue;
      o["part"] = part;
      owned.push_back(tasks::make_dataset(name, o));
      parts.push_back({data.empty() ? fmt::format("{} ({} part)", name, part) : data, owned.back().get()});
    }
    const tasks::Signature want = r.run.train->signature(), got = owned.back()->signature();
    if (!tasks::same_inputs_and_outputs(want, got))
      throw Error(fmt::format("eval: {} gives {} inputs and {} {} outputs, but run {} was trained for {} inputs and {} {} "
                              "outputs ({})",
                              parts.back().what, got.input_dim, got.output_dim, tasks::output_kind_name(got.output), dir,
                              want.input_dim, want.output_dim, tasks::output_kind_name(want.output), cfg.task));
  } else {
    parts.push_back({fmt::format("{} (training part)", cfg.task), r.run.train.get()});
    parts.push_back({fmt::format("{} (test part)", cfg.task), r.run.test ? r.run.test.get() : r.run.train.get()});
  }
  const tasks::Measure measure = tasks::measure(parts.back().data->name());
  const models::Network& net = r.run.network->network();
  const bool reconstruct = net.output_kind() != tasks::OutputKind::softmax;
  fmt::print("eval {}: {}; loss: {}\n", dir, measure.name,
             reconstruct ? "binary cross-entropy per pixel (nats)" : "cross-entropy per image (nats)");
  // the objective's mean is per image or per output unit (objective_options.mean_over): report per pixel
  const double pixels_per_loss =
      r.run.network->options().mean_over == "outputs" ? 1.0 : static_cast<double>(net.output_size());
  for (const Part& p : parts) {
    const int64_t n = count > 0 ? std::min(count, p.data->num_cases()) : p.data->num_cases();
    const EvalResult e = evaluate(*r.run.objective, r.theta, *p.data, n, 0);
    const std::string interval = std::isfinite(e.interval.low)
                                     ? fmt::format("95% interval [{:.6f}, {:.6f}]", e.interval.low, e.interval.high)
                                     : std::string("(no interval: fewer than 1,000 images)");
    fmt::print("{}: {} images  {} {:.6f}  {}  loss {:.6f}\n", p.what, e.sequences, measure.short_name, e.error_rate,
               interval, reconstruct ? e.loss / pixels_per_loss : e.loss);
  }
  return 0;
}
}  // namespace

Run add_train(CLI::App& app) {
  auto a = std::make_shared<TrainArgs>();
  app.add_option("--config", a->config, "run config (JSON): every option below, plus model_options etc.");
  app.add_option("--model", a->model, "model (tapegrad models)")->check(non_empty_name());
  app.add_option("--task", a->task, "task (tapegrad tasks)")->check(non_empty_name());
  app.add_option("--data", a->data, "a UTF-8 text file (task 'text'), an IDX file of images (task 'images') or a speech corpus directory (tasks 'phonemes', 'speech_frames')");
  app.add_option("--optimizer", a->optimizer, "optimizer: hf, sgd, momentum, nag, rmsprop, adam, lbfgs")->check(non_empty_name());
  app.add_option("--seed", a->seed, "random seed (initialisation and data; default 1, or the config's)")->check(unsigned_in(0, UINT64_MAX));
  app.add_option("--steps", a->steps, "optimizer iterations")->check(integer_in(0, INT64_MAX));
  app.add_option("--max-seconds", a->max_seconds, "stop with a checkpoint after this much time")
      ->check(number_in(0.0, 1e12));
  app.add_option("--cpu-budget", a->cpu_budget,
                 "stop with a checkpoint once the run's training CPU seconds, over all --resume calls, reach this")
      ->check(number_in(0.0, 1e12));
  app.add_option("--threads", a->threads,
                 "threads that split each batch (default: the cores this process may use, shared among MPI ranks; "
                 "results repeat bit for bit at a given count)")
      ->check(integer_in(1, 1024));
  app.add_option("--set", a->sets, "key=value override of the run config; dotted keys: model_options.hidden=64");
  app.add_option("--out", a->out, "run directory (config.json, metrics.jsonl, checkpoint.npz)")->required();
  app.add_flag("--resume", a->resume, "continue the run in --out from its checkpoint");
  app.add_flag("--quiet", a->quiet, "no progress output");
  return [a] {
    TrainOptions opt{a->out, a->resume, a->quiet};
    return train(resolve_train_config(*a), opt);  // sizes the machine cannot run are refused before DIR exists
  };
}

Run add_eval(CLI::App& app) {
  auto dir = std::make_shared<std::string>();
  auto data = std::make_shared<std::string>();
  auto task = std::make_shared<std::string>();
  auto seed = std::make_shared<uint64_t>(12345);
  auto count = std::make_shared<int64_t>(10000);
  auto task_sets = std::make_shared<std::vector<std::string>>();
  auto last = std::make_shared<bool>(false);
  app.add_option("--run", *dir, "run directory")->required()->check(non_empty_path());
  app.add_flag("--last", *last, "score the last checkpoint's parameters, not the best validation's (DIR/best.npz of a "
                                "run with patience)");
  app.add_option("--task-set", *task_sets,
                 "key=value over the run's task options, for fresh sequences of another kind (steps=60: longer "
                 "ones; part=gap: held-out frequencies)");
  app.add_option("--data", *data, "a text file (scored with the run's vocabulary) or a task file (tasks --dump)");
  app.add_option("--task", *task, "score on fresh sequences of this task (default: the run's own)")->check(non_empty_name());
  app.add_option("--seed", *seed, "seed of the fresh test sequences (the same as tasks --dump --seed)")
      ->check(unsigned_in(0, UINT64_MAX));
  CLI::Option* n_option = app.add_option("-n", *count, "number of test sequences (at most, for fixed data; images: "
                                                      "all unless given)")
                              ->check(integer_in(1, kMaxFreshEvalSequences));  // as train's eval_batch (-n 1e11 ran with no end in sight)
  return [=] {
    if (!data->empty() && !task->empty())
      throw Error(fmt::format("eval: give --data (fixed sequences) or --task (fresh ones), not both (--task {} would "
                              "be ignored)",
                              *task));
    LoadedRun r = load_run(*dir, "eval", *last ? WhichParams::last : WhichParams::best_if_any);
    // which parameters, always: a score means little without them (the last checkpoint need not be the run's end)
    if (r.best)
      fmt::print("parameters of the best validation: {} (iteration {}; --last for the last checkpoint's)\n",
                 r.params_file, r.iteration);
    else
      fmt::print("parameters of the last checkpoint: {} (iteration {}{})\n", r.params_file, r.iteration,
                 *last ? "" : "; the run kept no best validation's");
    if (r.run.network) return eval_images(r, *dir, *data, *task, n_option->count() ? *count : 0);
    const RunConfig& cfg = r.run.cfg;
    std::unique_ptr<tasks::Dataset> owned;
    const tasks::Dataset* t = nullptr;
    std::string what;
    if (!data->empty()) {
      std::string first;  // through InputFile: a FIFO or a device is refused, not waited on
      InputFile(*data, "data file", kMaxTaskFileBytes).read_line(first);
      const bool task_file = first.find("\"tapegrad-task") != std::string::npos;
      if (task_file) {
        owned = tasks::open_task_file(*data);
        // The model's inputs and outputs must be the file's, else unroll fails on a symptom ("needs 30
        // steps of dense inputs, got 0") instead of naming the mismatch.
        const tasks::Signature want = r.run.train->signature(), got = owned->signature();
        auto describe = [](const tasks::Signature& s) {
          return fmt::format("input {} {}, output {} {}", s.symbolic_input ? "symbols" : "dense", s.input_dim,
                             tasks::output_kind_name(s.output), s.output_dim);
        };
        if (!tasks::same_inputs_and_outputs(want, got))
          throw Error(fmt::format("eval: {} holds task '{}' ({}), but run {} was trained on task '{}' ({})", *data,
                                  owned->name(), describe(got), *dir, cfg.task, describe(want)));
      } else {
        if (cfg.task != "text") throw Error(fmt::format("eval --data: run {} was trained on task '{}', not text", *dir, cfg.task));
        nlohmann::json o = cfg.task_options;
        o["file"] = *data;
        o["train_file"] = "";
        o["valid_file"] = "";
        o["test_file"] = "";
        o["split"] = {1.0, 0.0, 0.0};
        o["vocab"] = *dir + "/vocab.json";
        o["part"] = "train";
        owned = tasks::make("text", o);
      }
      t = owned.get();
      what = *data;
    } else if ((!task->empty() && *task != cfg.task) || !task_sets->empty()) {
      const std::string name = task->empty() ? cfg.task : *task;
      // Another task keeps those of the run's options it has (T, say) and its own defaults for the rest:
      // the run's task's own options (addition's cues) would be unknown to it.
      nlohmann::json o = nlohmann::json::object();
      const nlohmann::json& known = tasks::find(name).defaults;
      for (const auto& [key, value] : cfg.task_options.items())
        if (name == cfg.task || known.contains(key)) o[key] = value;
      for (const std::string& a : *task_sets) apply_set(o, a, "--task-set");
      owned = tasks::make_dataset(name, o);
      if (!tasks::same_inputs_and_outputs(r.run.train->signature(), owned->signature()))
        throw Error(fmt::format("eval: task '{}' with {} gives inputs and outputs that run {} does not read", name,
                                o.dump(), *dir));
      t = owned.get();
      what = task_sets->empty() ? fmt::format("{} (fresh, seed {})", name, *seed)
                                : fmt::format("{} with {} (fresh, seed {})", name, fmt::join(*task_sets, ", "), *seed);
    } else {
      t = r.run.test ? r.run.test.get() : r.run.train.get();
      what = r.run.test             ? fmt::format("{} (test part)", cfg.task)
             : t->num_cases() > 0 ? fmt::format("{} (its fixed {})", cfg.task, t->case_noun())
                                  : fmt::format("{} (fresh, seed {})", cfg.task, *seed);
    }
    // evaluate() draws fresh sequences from Rng(seed ^ kEvaluateSeedMix) (tools/run_setup.h): undoing the
    // mix makes eval --seed S score exactly the sequences `tasks --dump --seed S` writes, Rng(S)'s.
    EvalResult e = evaluate(*r.run.objective, r.theta, *t, *count, *seed ^ kEvaluateSeedMix);
    bool text = cfg.task == "text";
    const bool reaching = dynamic_cast<const tasks::ReachTask*>(t) != nullptr;
    fmt::print("eval {} on {}: {} {}\n", *dir, what, e.sequences, t->case_noun());
    const bool contrastive = dynamic_cast<const models::TemporalRbmObjective*>(r.run.objective.get()) != nullptr;
    const bool ctc = cfg.task == "phonemes";  // label-sequence targets: CTC's -log p per utterance
    fmt::print("loss {:.6f} {}\n", e.loss,
               text          ? "nats/char"
               : ctc         ? "nats per utterance (CTC: -log p of its phone sequence)"
               : reaching    ? "(the task's cost, mean per reach)"
               : contrastive ? "(contrastive divergence's surrogate, mean per frame: not a likelihood)"
                             : "per target");
    const std::string interval = std::isfinite(e.interval.low)
                                     ? fmt::format("  95% interval [{:.6f}, {:.6f}]", e.interval.low, e.interval.high)
                                     : std::string("  (no interval: fewer than 1,000 sequences)");
    if (reaching)  // trained to a budget: no success threshold to compare with
      fmt::print("{} {:.6f}{}\n", tasks::measure(cfg.task).name, e.error_rate, interval);
    else if (!std::isfinite(t->success_threshold()))  // likewise, with the seed's figures to compare with
      fmt::print("{} {:.6f}{}  ({})\n", tasks::measure(cfg.task).name, e.error_rate, interval, t->success_criterion());
    else
      fmt::print("{} {:.6f}{}  ({}; success when below {})\n", text ? "bpc" : "error_rate", e.error_rate, interval,
                 t->success_criterion(), t->success_threshold());
    // A fixed data set's held-out parts both: the validation part (dev) beside the test part.
    if (r.run.test && t == r.run.test.get() && r.run.valid && r.run.valid->num_cases() > 0) {
      const EvalResult v = evaluate(*r.run.objective, r.theta, *r.run.valid, *count, *seed ^ kEvaluateSeedMix);
      fmt::print("valid part: {} {}, loss {:.6f}, {} {:.6f}{}\n", v.sequences, t->case_noun(), v.loss,
                 tasks::measure(cfg.task).name, v.error_rate,
                 std::isfinite(v.interval.low) ? fmt::format("  95% interval [{:.6f}, {:.6f}]", v.interval.low, v.interval.high)
                                               : std::string("  (no interval: fewer than 1,000 sequences)"));
    }
    if (const auto* tt = dynamic_cast<const tasks::text::TextTask*>(t)) {
      const UnknownCharacters u = unknown_characters(r.run.sequence_objective("eval"), r.theta, *tt, *count);
      if (u.unknown == 0) {
        fmt::print("unknown characters: 0 of {} target characters\n", u.targets);
      } else {
        fmt::print("unknown characters: {} of {} target characters ({:.3f}%), outside the run's vocabulary "
                   "({}/vocab.json), {:.1f} bits each\n",
                   u.unknown, u.targets, 100.0 * static_cast<double>(u.unknown) / static_cast<double>(u.targets), *dir,
                   u.bits_unknown / static_cast<double>(u.unknown));
        const int64_t known = u.targets - u.unknown;
        if (known > 0)
          fmt::print("bpc without them {:.6f} (the {} known characters; with them {:.6f})\n",
                     u.bits_known / static_cast<double>(known), known,
                     (u.bits_known + u.bits_unknown) / static_cast<double>(u.targets));
      }
    }
    return 0;
  };
}

Run add_sample(CLI::App& app) {
  auto dir = std::make_shared<std::string>();
  auto prompt = std::make_shared<std::string>();
  auto length = std::make_shared<int64_t>(200);
  auto temperature = std::make_shared<double>(1.0);
  auto seed = std::make_shared<uint64_t>(1);
  app.add_option("--run", *dir, "run directory of a character-level model")->required()->check(non_empty_path());
  app.add_option("--prompt", *prompt, "text to start from");
  app.add_option("--length", *length, "characters to generate")->check(integer_in(1, 1000000));
  app.add_option("--temperature", *temperature, "softmax temperature (0: greedy)")->check(number_in(0.0, 100.0));
  app.add_option("--seed", *seed, "sampling seed")->check(unsigned_in(0, UINT64_MAX));
  return [=] {
    LoadedRun r = load_run(*dir, "sample");
    const tasks::Signature sig = r.run.train->signature();
    if (sig.alphabet.empty() || !sig.symbolic_input)
      throw Error(fmt::format("sample: run {} models task '{}', which has no characters to sample", *dir, r.run.cfg.task));
    // prompt characters -> symbols (unknown characters map to the unknown symbol, the last one)
    std::vector<int32_t> ids;
    int unknown = 0;
    for (size_t i = 0; i < prompt->size();) {
      size_t len = 1;
      unsigned char c = static_cast<unsigned char>((*prompt)[i]);
      if (c >= 0xF0) len = 4;
      else if (c >= 0xE0) len = 3;
      else if (c >= 0xC0) len = 2;
      std::string ch = prompt->substr(i, len);
      int32_t id = -1;
      for (size_t k = 0; k < sig.alphabet.size(); ++k)
        if (sig.alphabet[k] == ch) id = static_cast<int32_t>(k);
      if (id < 0) ++unknown, id = static_cast<int32_t>(sig.alphabet.size()) - 1;
      ids.push_back(id);
      i += len;
    }
    if (unknown > 0)  // as eval counts them: the model sees its unknown symbol there, not the character
      std::fprintf(stderr, "sample: %d of %zu prompt characters are not in run %s's vocabulary (read as its unknown symbol)\n",
                   unknown, ids.size(), dir->c_str());
    if (ids.empty()) ids.push_back(0);
    Rng rng(*seed);
    models::Model& model = r.run.sequence_objective("sample").model();
    model.params().set_values(r.theta);
    std::string out = *prompt;
    // Re-unrolls the prefix for every new character: O(n²) steps, simple and exact for any model.
    for (int64_t k = 0; k < *length; ++k) {
      Graph g;
      models::Sequence s;
      s.T = static_cast<int64_t>(ids.size());
      s.B = 1;
      for (int32_t id : ids) s.symbols.push_back(ops::make_index({id}));
      models::Outputs o = model.unroll(g, s);
      std::vector<double> z = o.logits.back().value().to_vector();
      int32_t next = 0;
      if (*temperature == 0) {
        next = static_cast<int32_t>(std::max_element(z.begin(), z.end()) - z.begin());
      } else {
        double m = *std::max_element(z.begin(), z.end());
        std::vector<double> p(z.size());
        for (size_t i = 0; i < z.size(); ++i) p[i] = std::exp((z[i] - m) / *temperature);
        std::discrete_distribution<int32_t> d(p.begin(), p.end());
        next = d(rng);
      }
      ids.push_back(next);
      out += sig.alphabet.at(next);
    }
    fmt::print("{}\n", out);
    return 0;
  };
}

}  // namespace tg::cli
