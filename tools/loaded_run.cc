#include "tools/loaded_run.h"

#include <fmt/format.h>
#include <sys/stat.h>

#include <cerrno>
#include <cstdio>

#include "core/error.h"
#include "ops/blas.h"
#include "ops/float_env.h"
#include "tools/config_diff.h"
#include "tools/run_checkpoint.h"

namespace tg::cli {

LoadedRun load_run(const std::string& dir, const std::string& who, WhichParams which) {
  const std::string cfg_path = dir + "/config.json", ckpt_path = dir + "/checkpoint.npz";
  const RunConfig trained =
      as_recorded_before_options(run_config_from_json(read_checkpoint_config(ckpt_path), ckpt_path + ": config"));
  RunSetup run;
  struct stat st {};
  if (::lstat(cfg_path.c_str(), &st) != 0 && errno == ENOENT) {
    std::fprintf(stderr, "%s: %s is missing; using the config stored in %s\n", who.c_str(), cfg_path.c_str(),
                 ckpt_path.c_str());
    run = make_run(trained);
  } else {
    const RunConfig copy = as_recorded_before_options(run_config_from_json(read_json_file(cfg_path), cfg_path));
    run = make_run(trained);
    // --resume may change how long a run trains and how often it saves (the checkpoint records it),
    // nothing else. A run of an older build lacks the options added since: compare both with the
    // defaults filled in.
    if (run_identity(copy) != run_identity(trained)) {
      nlohmann::json resolved = run_identity(copy);
      try {
        resolved = run_identity(make_run(copy).cfg);
      } catch (const Error&) {  // an edit that makes no valid run: the raw difference says which
      }
      if (auto d = first_difference(run_identity(run.cfg), resolved, "in the checkpoint", "in config.json"))
        throw Error(fmt::format("{}: {} does not match the config the run was trained with ({}): {}; restore it, or "
                                "delete it to use the checkpoint's",
                                who, cfg_path, ckpt_path, *d));
    }
  }
  LoadedRun r{std::move(run), {}, ckpt_path, 0};
  blas::set_gemm_backend(r.run.cfg.gemm);
  blas::set_threads(r.run.cfg.threads);
  const std::string best_path = dir + "/best.npz";
  if (which == WhichParams::best_if_any && ::lstat(best_path.c_str(), &st) == 0) {
    r.params_file = best_path;
    r.best = true;
    // both with today's defaults: an option added since the run was made is not a difference
    const RunConfig best = with_current_defaults(run_config_from_json(read_checkpoint_config(best_path), best_path));
    if (auto d = first_difference(run_identity(best), run_identity(r.run.cfg), "in best.npz", "in the checkpoint"))
      throw Error(fmt::format("{}: {} is not from this run: {}", who, best_path, *d));
  }
  Checkpoint c = load_checkpoint(r.params_file, r.run.objective->params());
  r.theta = c.theta;
  r.iteration = c.iteration;
  return r;
}


}  // namespace tg::cli
