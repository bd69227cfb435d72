// Hidden-unit nonlinearities selectable by name ("activation": "tanh" | "logistic" | "relu").
#pragma once
#include <string>

#include "core/var.h"
#include "core/options.h"

namespace tg::models {

enum class Activation { tanh, logistic, relu, linear };

Activation read_activation(const OptionReader& o, const std::string& key);  // tanh | logistic | relu
const char* activation_name(Activation a);
Var activate(Activation a, Var u, Site site = Site::current());

}  // namespace tg::models
