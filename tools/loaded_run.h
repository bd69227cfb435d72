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
};
// The checkpoint holds the config its parameters were trained with; config.json is a readable copy.
// An edited copy must not silently turn the parameters into a different model, and a lost one must not
// make the run unusable: `who` (eval, sample) refuses a mismatch naming the first differing option,
// and without config.json uses the checkpoint's config.
LoadedRun load_run(const std::string& dir, const std::string& who);

}  // namespace tg::cli
