// A run's checkpoint (DIR/checkpoint.npz), the one format of every training method: the parameters
// (one array per name under param/, plus the flat vector theta), the optimizer's state (its scalars
// as JSON, its vectors under optimizer/), the trainer's RNG state and own state (JSON), iteration,
// clocks and the config.
// Loading checks every field (shape, range, finiteness, param/ against theta) and names the bad one.
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/params.h"

namespace tg::cli {

struct Checkpoint {
  int64_t iteration = 0;
  double seconds = 0;      // training time so far (wall clock)
  double cpu_seconds = 0;  // training CPU time so far (this process; rank 0 under MPI)
  ParamVec theta;
  std::string rng_state;
  nlohmann::json optimizer_scalars;
  std::vector<std::pair<std::string, ParamVec>> optimizer_vectors;
  nlohmann::json config;
  // The trainer's own state (early stopping's best validation so far, and its parameters); absent in
  // older checkpoints.
  nlohmann::json trainer = nlohmann::json::object();
  std::optional<ParamVec> best_theta;
};
void save_checkpoint(const std::string& path, const Checkpoint& c, const ParamSet& layout);
Checkpoint load_checkpoint(const std::string& path, const ParamSet& layout);
// Only the config the checkpoint's parameters were trained with (needs no model); a corrupt one is a
// tg::Error naming the file.
nlohmann::json read_checkpoint_config(const std::string& path);

// The RNG state as text (exactly what is saved) and back; a state that does not parse is a tg::Error
// naming `where`.
std::string rng_to_string(const Rng& r);
Rng rng_from_string(const std::string& s, const std::string& where);

}  // namespace tg::cli
