#include "tools/loaded_run.h"

#include <fmt/format.h>
#include <sys/stat.h>

#include <cerrno>
#include <cstdio>

#include "core/error.h"
#include "ops/blas.h"
#include "tools/config_diff.h"
#include "tools/run_checkpoint.h"

namespace tg::cli {

LoadedRun load_run(const std::string& dir, const std::string& who) {
  const std::string cfg_path = dir + "/config.json", ckpt_path = dir + "/checkpoint.npz";
  const RunConfig trained = run_config_from_json(read_checkpoint_config(ckpt_path), ckpt_path + ": config");
  RunSetup run;
  struct stat st {};
  if (::lstat(cfg_path.c_str(), &st) != 0 && errno == ENOENT) {
    std::fprintf(stderr, "%s: %s is missing; using the config stored in %s\n", who.c_str(), cfg_path.c_str(),
                 ckpt_path.c_str());
    run = make_run(trained);
  } else {
    const RunConfig copy = run_config_from_json(read_json_file(cfg_path), cfg_path);
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
  LoadedRun r{std::move(run), {}};
  blas::set_threads(r.run.cfg.threads);
  Checkpoint c = load_checkpoint(ckpt_path, r.run.objective->params());
  r.theta = c.theta;
  return r;
}


}  // namespace tg::cli
