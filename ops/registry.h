// The registry of every primitive and composite, so tests can enumerate them and fail when one has
// no gradient-check spec (JAX's table discipline).
#pragma once
#include <string>
#include <vector>

#include "core/primitive.h"

namespace tg::ops {
const std::vector<const Primitive*>& primitives();
const Primitive* find_primitive(const std::string& name);
// Composite ops (built from primitives, no derivative code of their own).
const std::vector<std::string>& composites();
}  // namespace tg::ops
