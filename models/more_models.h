// Registration hooks of the part-B models that are not in Ollivier's family (models/ollivier.h).
#pragma once
#include <vector>

#include "core/tensor.h"
#include "models/model.h"

namespace tg::models {
void register_scrn(std::vector<ModelInfo>& r);            // models/scrn.cc
void register_irnn(std::vector<ModelInfo>& r);            // models/irnn.cc
void register_esn(std::vector<ModelInfo>& r);             // models/esn.cc
void register_gated_feedback(std::vector<ModelInfo>& r);  // models/gated_feedback.cc
void register_wrappers(std::vector<ModelInfo>& r);        // models/wrappers.cc
void register_deep_bidirectional(std::vector<ModelInfo>& r);  // models/deep_bidirectional.cc

// The fixed part of an echo state network (graph constants, never parameters): input weights W_in
// [in, H], reservoir W [H, H] scaled to the requested spectral radius, bias b [H]; alpha = the leak.
struct EsnReservoir {
  Tensor W_in, W, b;  // float64
  double alpha = 0;
};
const EsnReservoir& esn_reservoir(const Model& esn);  // throws tg::Error if `esn` is not an ESN

}  // namespace tg::models
