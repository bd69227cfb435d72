// The core model families (seeds 000, 001, 002, 004 and Graves' peephole LSTM from 003's baseline).
#include "models/families.h"
#include "models/gru.h"
#include "models/lstm.h"
#include "models/lstm_sutskever.h"
#include "models/mlstm.h"
#include "models/mrnn.h"
#include "models/rnn.h"
#include "models/stacked_mrnn.h"
#include "models/tensor_rnn.h"

namespace tg::models {
void register_core_models(std::vector<ModelInfo>& r) {
  r.push_back(rnn_info());
  r.push_back(mrnn_info());
  r.push_back(tensor_rnn_info());
  r.push_back(stacked_mrnn_info());
  r.push_back(lstm_info());
  r.push_back(lstm_sutskever_info());
  r.push_back(lstm_krause_info());
  r.push_back(lstm1997_info());
  r.push_back(lstm_peephole_info());
  r.push_back(lstm_no_output_tanh_info());
  r.push_back(mlstm_info());
  r.push_back(gru_info());
}
}  // namespace tg::models
