#include "models/model.h"

#include <fmt/format.h>

#include "core/error.h"

namespace tg::models {

Outputs Model::unroll_steps(Graph&, const Sequence&, int64_t, int64_t, std::vector<Var>&) const {
  throw Error(fmt::format("model '{}' cannot be unrolled in segments, so it cannot be rematerialised "
                          "(remat_segments needs a cell model: rnn, lstm, gru, mrnn, mlstm, ...)", kind()));
}

Var Model::readout(const std::vector<Var>&) const {
  throw Error(fmt::format("model '{}' has no explicit state to read out", kind()));
}

IoSizes read_io_sizes(const OptionReader& o) {
  IoSizes io;
  io.vocab = o.count("vocab");
  io.in = o.count("in");
  if ((io.vocab > 0) == (io.in > 0))
    o.fail("set exactly one of 'vocab' (symbolic inputs) and 'in' (dense inputs); use vocab=0 with in=N");
  io.out = o.count("out");
  if (io.out == 0) {
    if (!io.symbolic()) o.fail("option 'out' must be set (> 0) for dense inputs");
    io.out = io.vocab;  // next-symbol prediction
  }
  return io;
}

}  // namespace tg::models
