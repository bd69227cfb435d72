// Part B of the model zoo: SCRN, gated-feedback RNN, ESN, IRNN, stacked / bidirectional wrappers, and
// Ollivier's GLNN, GNN and classical RNN. Each model lives in its own file with its registration hook.
#include "models/families.h"
#include "models/more_models.h"
#include "models/ollivier.h"

namespace tg::models {
void register_more_models(std::vector<ModelInfo>& r) {
  register_scrn(r);
  register_esn(r);
  register_irnn(r);
  register_gated_feedback(r);
  register_wrappers(r);
  register_deep_bidirectional(r);
  ollivier::register_glnn(r);
  ollivier::register_gnn(r);
  ollivier::register_ollivier_rnn(r);
}
}  // namespace tg::models
