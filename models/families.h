// Registration hooks of the model families (called by models/registry.cc, no static self-registration).
#pragma once
#include <vector>

#include "models/model.h"

namespace tg::models {
// RNN, MRNN, tensor RNN, stacked mRNN, the LSTM family, mLSTM, GRU.
void register_core_models(std::vector<ModelInfo>& r);
// SCRN, gated-feedback RNN, ESN, IRNN, stacked / bidirectional wrappers, GLNN, GNN, Ollivier's RNN.
void register_more_models(std::vector<ModelInfo>& r);
}  // namespace tg::models
