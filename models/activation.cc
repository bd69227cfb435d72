#include "models/activation.h"

#include "ops/ops.h"

namespace tg::models {

Activation read_activation(const OptionReader& o, const std::string& key) {
  const std::string a = o.choice(key, {"tanh", "logistic", "relu"});
  return a == "tanh" ? Activation::tanh : a == "logistic" ? Activation::logistic : Activation::relu;
}

const char* activation_name(Activation a) {
  switch (a) {
    case Activation::tanh: return "tanh";
    case Activation::logistic: return "logistic";
    case Activation::relu: return "relu";
    case Activation::linear: return "linear";
  }
  return "?";
}

Var activate(Activation a, Var u, Site site) {
  switch (a) {
    case Activation::tanh: return ops::tanh(u, site);
    case Activation::logistic: return ops::logistic(u, site);
    case Activation::relu: return ops::relu(u, site);
    case Activation::linear: return u;
  }
  return u;
}

}  // namespace tg::models
