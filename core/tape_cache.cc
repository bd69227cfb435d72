#include "core/tape_cache.h"

namespace tg {

std::unique_ptr<Graph> TapeCache::take(GraphOptions options) {
  std::unique_ptr<Graph> g;
  {
    std::lock_guard lock(mutex_);
    if (enabled_) g = std::move(kept_);
  }
  if (!g || g->options() != options) return std::make_unique<Graph>(options);
  g->rebuild();
  return g;
}

void TapeCache::give(std::unique_ptr<Graph> g) {
  if (!g || g->has_dynamic_nodes()) return;
  g->release_values();
  std::lock_guard lock(mutex_);
  if (enabled_) kept_ = std::move(g);
}

void TapeCache::set_enabled(bool on) {
  std::lock_guard lock(mutex_);
  enabled_ = on;
  if (!on) kept_.reset();
}

}  // namespace tg
