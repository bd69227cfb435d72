// tapegrad plot --trajectories: a trained arm controller's hand paths, the way the thesis's Figs. 6.2–6.5
// show them: every reach's hand path from its start (a dot) towards its target (a circle), in the plane
// of the arm, in cm from the shoulder, with equal scales on both axes. On DDN the path is blue while the
// disturbance is off and red once it acts, over the same reach without the disturbance in grey (Fig. 6.4).
#pragma once
#include <cstdint>
#include <string>

namespace tg::cli {

// Rolls the run's controller out on up to `count` reaches of its task (the fixed reaches of center-out
// and postural; DDN's test part; 0: all fixed reaches, 32 of DDN's), draws the PNG (RUN/trajectories.png when out_png is empty) and
// returns its path. Throws tg::Error when the run is not a controller on a reaching task.
std::string plot_trajectories(const std::string& run_dir, const std::string& out_png, int64_t count);

}  // namespace tg::cli
