// tapegrad models: every registered model (sequence models, feedforward networks, the arm controller, the temporal
// Boltzmann machines, the gated autoencoders and pyramids) with its seed
// document(s) and a one-line description.
#include <fmt/format.h>

#include "models/arm_controller.h"
#include "models/model.h"
#include "models/network.h"
#include "tools/commands.h"

namespace tg::cli {

Run add_models(CLI::App&) {
  return [] {
    fmt::print("{:<22} {:<20} {}\n", "model", "seed", "description");
    for (const models::ModelInfo& m : models::registry()) fmt::print("{:<22} {:<20} {}\n", m.name, m.seed, m.description);
    fmt::print("\n{:<22} {:<20} {}\n", "network (feedforward)", "seed", "description");
    for (const models::NetworkInfo& n : models::networks()) fmt::print("{:<22} {:<20} {}\n", n.name, n.seed, n.description);
    fmt::print("\n{:<22} {:<20} {}\n", "controller (arm)", "seed", "description");
    fmt::print("{:<22} {:<20} {} (tasks center_out, postural, ddn)\n", "controller", "000 §1.7, §3.4",
               models::kControllerDescription);
    fmt::print("\n{:<22} {:<20} {}\n", "boltzmann (video)", "seed", "description");
    fmt::print("{:<22} {:<20} {}\n", "rtrbm", "000 §1.5, §2.6",
               "recurrent temporal RBM: an RNN r_t sets each frame's hidden bias; CD at every frame, BPTT through r");
    fmt::print("{:<22} {:<20} {}\n", "trbm", "000 §1.4, §2.6",
               "temporal RBM with m delay taps (links hh, vh, vv), mean-field filtering, CD at every frame");
    fmt::print("{:<22} {:<20} {}\n", "", "", "(tasks bouncing_balls, bouncing_balls_kl; optimizers sgd, momentum, nag, "
               "rmsprop, adam)");
    fmt::print("\n{:<22} {:<20} {}\n", "gated (frame pairs)", "seed", "description");
    fmt::print("{:<22} {:<20} {}\n", "fgae", "004 §1.7",
               "factored gated autoencoder (eqs 6.1-6.2): mapping units relate two frames; symmetric, denoising");
    fmt::print("{:<22} {:<20} {}\n", "pair_ae", "004 §1.7",
               "its baseline: a sigmoid autoencoder of both frames with the FGAE's parameter count");
    fmt::print("{:<22} {:<20} {}\n", "pgp", "004 §1.8",
               "predictive gating pyramid (velocity, acceleration, jerk layers): closed-loop k-step prediction");
    fmt::print("{:<22} {:<20} {}\n", "cpgp", "004 §1.9",
               "conditional PGP: inputs act on the top units through a sigmoid layer (cond_mode add or preact)");
    fmt::print("{:<22} {:<20} {}\n", "", "", "(tasks image_pairs, transformed_video, sine_walk; docs/gated.md)");
    return 0;
  };
}

}  // namespace tg::cli
