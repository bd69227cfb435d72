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

}  // namespace tg::models
