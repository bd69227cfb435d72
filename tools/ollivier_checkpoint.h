// tapegrad ollivier --checkpoint / --resume: the Riemannian training loop's state (riemannian/
// training.h TrainState) in an .npz written atomically (core/npz.h), with the run's configuration so
// that a resume with other data, model or methods is refused. The data and the initial model are
// rebuilt from their seeds; the loop itself draws no random numbers.
#pragma once
#include <string>

#include "core/params.h"
#include "riemannian/training.h"

namespace tg::cli {

// config: the run's identity as text (compared on load); every other field of the file is the state.
void save_ollivier_state(const std::string& path, const riemannian::TrainState& s, const std::string& config);
// Throws tg::Error naming the file when it is unreadable, damaged, or from another configuration.
riemannian::TrainState load_ollivier_state(const std::string& path, const ParamSet& layout,
                                                  const std::string& config);

}  // namespace tg::cli
