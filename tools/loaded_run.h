// A trained run read back from its directory: the config its checkpoint was trained with (config.json
// must agree with it) and its parameters; what eval, sample and reconstruct start from.
#pragma once
#include <string>

#include "core/params.h"
#include "tools/run_setup.h"

namespace tg::cli {

struct LoadedRun {
  RunSetup run;
  ParamVec theta;
  std::string params_file;  // the file θ came from
  int64_t iteration = 0;    // the iteration θ is from
  bool best = false;        // θ is the best validation's (DIR/best.npz), not the last checkpoint's
};
enum class WhichParams { last, best_if_any };
// The checkpoint holds the config its parameters were trained with; config.json is a readable copy.
// An edited copy must not silently turn the parameters into a different model, and a lost one must not
// make the run unusable: `who` (eval, sample) refuses a mismatch naming the first differing option,
// and without config.json uses the checkpoint's config. best_if_any takes θ from DIR/best.npz (the best
// validation of an early-stopping run) when there is one.
LoadedRun load_run(const std::string& dir, const std::string& who, WhichParams which = WhichParams::last);

}  // namespace tg::cli
