// Shared pieces of Ollivier's symbolic-sequence models (seed 003): the GLNN (13)-(14), the GNN
// (10)-(11) and the classical RNN (8)-(9) all live on a random directed graph of N units with
// self-loops, plus an always-on bias unit 0 that feeds every unit, and all read out through dense
// writing weights w [N, out] plus the bias unit's row w0 [out]: E_y = Σ_i a_i w_iy + w_0y (6)/(14).
//
// Units are 0-based here: paper unit j = 1..N is index j-1. Edges are i -> j with weight tau_ij.
#pragma once
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/graph.h"
#include "core/params.h"
#include "models/model.h"
#include "ops/ops.h"

namespace tg::models::ollivier {

// The unit graph, bias unit excluded (its edges 0 -> j are separate parameters).
struct UnitGraph {
  int64_t n = 0;
  std::vector<int32_t> src, dst;  // edge e is src[e] -> dst[e]; sorted by (dst, src); one self-loop per unit
  ops::Index src_idx, dst_idx;
  int64_t edges() const { return static_cast<int64_t>(src.size()); }
  int64_t self_loop(int32_t i) const;  // the edge index of i -> i
};

// mode "out": every unit i gets its self-loop plus d-1 distinct random targets (the paper's "d
// distinct edges from each unit i"); "in": every unit j gets its self-loop plus d-1 distinct random
// sources (the complexity section's "edges i -> j per unit j"); "full": all N² edges (distant XOR).
// d >= N gives the full graph.
UnitGraph random_graph(int64_t n, int64_t d, const std::string& mode, Rng& rng);

// y[b, j] = Σ_{e: dst(e) = j} w[b, e] a[b, src(e)]: a gather over the edges' sources, a product, a
// scatter-add into their targets. a [B, N]; w [B, E] (per-sequence weights, symbol-gated) or [E].
Var edge_matvec(Var a, Var w, const UnitGraph& graph);

// The options every model of the family takes, with their defaults.
nlohmann::json common_defaults();

// Data statistics for the §2 initialisation recipes.
// Relative frequencies of symbols in [0, alphabet) weighted by `weights` (chi_t; empty = all 1):
//   nu_y = Σ_t chi_t 1[x_t = y] / Σ_t chi_t.
std::vector<double> symbol_frequencies(std::span<const int32_t> symbols, int64_t alphabet,
                                       std::span<const double> weights = {});
// The options {"symbol_freq": nu over the predicted symbols (targets, weighted by the loss mask chi),
// "symbol_freq_all": nu~ over all input symbols} that the factories read, ready to merge into a config.
nlohmann::json statistics_options(std::span<const int32_t> targets, std::span<const double> chi,
                                  std::span<const int32_t> inputs, int64_t in, int64_t out);

// The GLNN start-value recipe of §2 (eqs 30-33, 77) for paper unit j = 1..N, alpha = 1/2:
// mu_j = 1/(j+1), beta_j = -sqrt(alpha (alpha - mu_j)), V_j⁰ = atanh(beta_j / alpha).
struct GlnnUnitInit {
  double mu, beta, V0;
};
GlnnUnitInit glnn_unit_init(int64_t j, double alpha = 0.5);

// A model of the family: the graph it was built on (tests and the Riemannian metrics read it).
class GraphModel : public Model {
 public:
  const UnitGraph& graph() const { return graph_; }
  int64_t units() const { return graph_.n; }
  OutputKind output_kind() const override { return OutputKind::softmax; }
  const std::string& kind() const override { return kind_; }

 protected:
  GraphModel(std::string kind, DType dt) : Model(dt), kind_(std::move(kind)) {}
  std::string kind_;
  UnitGraph graph_;
};

// Registry hooks (models/register_more.cc calls them).
void register_glnn(std::vector<ModelInfo>& r);
void register_gnn(std::vector<ModelInfo>& r);
void register_ollivier_rnn(std::vector<ModelInfo>& r);

// Shared by the three builders (models/ollivier.cc).
namespace detail {
struct Common {
  IoSizes io;
  int64_t in = 0, out = 0, units = 0;  // in = the input alphabet (vocab) or the dense input size
  bool learned_state = true;
  std::string init;  // "ollivier" | "normal"
  double init_scale = 0.1;
  std::vector<double> nu, nu_all;  // normalised; uniform when not given
  double freq_floor = 1e-6;
};
// Reads the common options and builds the graph. degree 0 = the paper's semi-sparse setting:
// d = ceil(sqrt(2 #A)) for the gated models (GLNN, GNN), d = #A for the RNN.
Common read_common(const std::string& model, const nlohmann::json& cfg, bool gated, UnitGraph& graph, Rng& rng);
// w0_y = log max(nu_y, floor): the initial model is an i.i.d. source with the right frequencies.
std::vector<double> log_frequencies(const Common& c);
// c_j = (scale) (u_jy - Σ_y' nu~_y' u_jy'), u ~ U[0,1] iid: [in, N] laid out as [y][j].
std::vector<double> centred_uniform(const Common& c, const std::vector<double>& scale_per_unit, Rng& rng);
}  // namespace detail

}  // namespace tg::models::ollivier
