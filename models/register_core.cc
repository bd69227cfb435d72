#include "models/families.h"

namespace tg::models {
void register_core_models(std::vector<ModelInfo>&) {}
}  // namespace tg::models
