// The fully resolved configuration of a training run. Sources, lowest precedence first: built-in
// defaults, a JSON file (--config run.json), then command-line flags and --set key=value overrides
// (dotted keys reach into the option objects: --set model_options.hidden=100). Saved as
// DIR/config.json; `--resume` and `eval`/`sample` read it back.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace tg::cli {

struct RunConfig {
  std::string model = "rnn";
  nlohmann::json model_options = nlohmann::json::object();
  std::string task = "addition";
  nlohmann::json task_options = nlohmann::json::object();
  std::string optimizer = "hf";
  nlohmann::json optimizer_options = nlohmann::json::object();
  nlohmann::json objective_options = nlohmann::json::object();
  uint64_t seed = 1;
  int64_t steps = 100;            // optimizer iterations
  double max_seconds = 0;         // stop (with a checkpoint) after this much time in this invocation; 0: no limit
  double cpu_budget = 0;          // stop (with a checkpoint) once the run's training CPU seconds, summed over
                                  // every invocation (--resume), reach this; 0: no limit. CPU time, not wall
                                  // time, so runs sharing a machine get comparable budgets.
  int64_t batch = 100;            // sequences per gradient
  int64_t curvature_batch = 0;    // HF: sequences per curvature product (a subset); 0: batch / 10
  int64_t eval_every = 10;        // iterations between validation evaluations (0: only at the end)
  int64_t eval_batch = 1000;      // validation sequences (generated tasks) / at most this many (text)
  int64_t checkpoint_every = 10;  // iterations between checkpoints (also on exit and on SIGINT/SIGTERM)
  bool stop_on_success = false;   // stop (with a checkpoint) once validation meets the task's success criterion
                                  // and a confirmation on confirm_sequences fresh ones does too
  int64_t confirm_sequences = 10000;  // fresh sequences (never trained or validated on) that confirm a success
  int64_t patience = 0;           // early stopping: stop once this many validations in a row found no lower
                                  // validation error than the best (kept in DIR/best.npz); 0: never
  bool nan_rule = false;          // first-order methods: a non-finite loss or gradient rolls θ and the optimizer
                                  // back to the last checkpoint and halves the learning rate (Krueger §5.4.2)
  int threads = 0;                // threads that split each batch (optim/threaded_objective.h); 0: the cores this
                                  // process may use (shared among MPI ranks), resolved when the run is made.
                                  // Results are bitwise repeatable at a fixed count.
  std::string gemm;               // float32 gemm backend: auto, openblas, onednn (ops/blas.h); "": TAPEGRAD_GEMM
                                  // or auto. Resolved to onednn or openblas when the run is made.
  std::string denormals;          // subnormal floats: flush (to zero) or keep (ops/float_env.h); "": flush.
                                  // Resolved when the run is made; runs recorded before the option keep them.
  std::string dtype = "float32";
};

nlohmann::json to_json(const RunConfig& c);
// What must not change when a run is resumed, and what config.json must agree on with the checkpoint:
// every option but how long the run trains (steps, max_seconds, cpu_budget) and how often it saves.
nlohmann::json run_identity(RunConfig c);
// Unknown keys and values of the wrong type are a tg::Error naming the key.
RunConfig run_config_from_json(const nlohmann::json& j, const std::string& where);
// Applies "key=value" (value parsed as JSON when it parses, else a string) to a JSON object;
// dotted keys create nested objects. Errors name `flag`, the option that gave it.
void apply_set(nlohmann::json& j, const std::string& assignment, const std::string& flag = "--set");
// The value of a --set KEY=TEXT: TEXT as JSON when it parses (50, 0.5, [1,2], {"a":1}, "x"), else the plain
// string (file=data/x.txt); TEXT that begins like JSON ({, [ or ") but does not parse is an error naming
// `what` and the parser's complaint, not a string.
nlohmann::json set_value(const std::string& text, const std::string& what);
// Reads a JSON file; errors name the file (and line/column for syntax errors).
nlohmann::json read_json_file(const std::string& path);

}  // namespace tg::cli
