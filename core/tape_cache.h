// TapeCache: the graph of an objective's last evaluation, kept for the next one to rebuild
// (Graph::rebuild) instead of making every node again. A training step on a small model spends as much
// time making its nodes as running their kernels (docs/results/engine_bench.md); a rebuild that walks
// the recorded tape skips the making and gives the same graph, node for node and bit for bit.
#pragma once
#include <memory>
#include <mutex>

#include "core/graph.h"

namespace tg {

class TapeCache {
 public:
  // A graph with these options: a kept one, rebuilt, or a new one.
  std::unique_ptr<Graph> take(GraphOptions options);
  // Keeps g for the next take (in place of any kept one), its values dropped now: a kept graph holds no
  // tensors. A graph with placeholders (a linearization's segments) is destroyed instead. A batch of
  // another shape (validation) cuts the record at its first node: the cost of a fresh build, once.
  void give(std::unique_ptr<Graph> g);
  void set_enabled(bool on);  // off: take always makes a new graph (benchmarks and tests compare)

 private:
  std::mutex mutex_;  // an evaluation may end on another thread than the one that takes the next
  std::unique_ptr<Graph> kept_;
  bool enabled_ = true;  // read and written under mutex_
};

}  // namespace tg
