// tapegrad models: every registered model (sequence models, then feedforward networks) with its seed
// document(s) and a one-line description.
#include <fmt/format.h>

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
    return 0;
  };
}

}  // namespace tg::cli
