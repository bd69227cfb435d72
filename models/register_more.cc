#include "models/families.h"

namespace tg::models {
void register_more_models(std::vector<ModelInfo>&) {}
}  // namespace tg::models
