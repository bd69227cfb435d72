// The output layer ("head"): logits z = r W_oh (+ b_o) from what a cell reads out, and the output
// units' nonlinearity named by OutputKind. Logits are the Gauss-Newton linearization point; the
// matching loss of each kind is in loss.h.
#pragma once
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "core/graph.h"
#include "models/model.h"
#include "core/options.h"
#include "models/param_builder.h"

namespace tg::models {

class OutputLayer {
 public:
  OutputLayer() = default;
  OutputLayer(ParamBuilder& p, int64_t in, int64_t out, bool bias);  // W_oh [in, out], b_o [out]
  Var logits(Graph& g, Var readout, Site site = Site::current()) const;
  // The logits of steps first, first + 1, ... from their readouts [B, in] in one GEMM of n·B rows (one
  // product instead of n small ones, which run far below a GEMM's peak); each step's logits, its block
  // of rows (a view), is named in scope `step_scope`=t as a per-step product would be.
  // `all`, when given, receives the stacked logits [n·B, out] (empty for one step): Outputs::logits_all.
  std::vector<Var> logits_of_steps(Graph& g, std::span<const Var> readouts, const std::string& step_scope,
                                   int64_t first, Site site = Site::current(), Var* all = nullptr) const;

 private:
  ParamId w_oh_;
  ParamId b_o_;  // index -1: no output bias
};

// softmax over the last axis, logistic, or the identity.
Var predict(OutputKind kind, Var logits, Site site = Site::current());
OutputKind read_output_kind(const OptionReader& o, const std::string& key);  // softmax | logistic | linear

}  // namespace tg::models
