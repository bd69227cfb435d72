#include "models/stacked_mrnn.h"

#include <fmt/format.h>

#include "models/cell_model.h"

namespace tg::models {

StackedMrnnCell::StackedMrnnCell(ParamBuilder& p, InputShape in, const std::vector<MrnnOptions>& layers) {
  for (size_t l = 0; l < layers.size(); ++l) {
    ParamBuilder pl = p.scoped(fmt::format("l{}", l + 1));
    layers_.emplace_back(pl, in, layers[l]);
    if (l > 0) w_hb_.push_back(pl.weight("W_hb", layers[l - 1].hidden, layers[l].hidden));
    readout_size_ += layers[l].hidden;
  }
}

State StackedMrnnCell::initial(Graph& g, int64_t batch) const {
  State s;
  for (const MrnnCell& layer : layers_) s.push_back(layer.initial(g, batch)[0]);
  return s;
}

Step StackedMrnnCell::step(Graph& g, const StepInput& x, const State& s) const {
  Step out;
  std::vector<Var> u;
  for (size_t l = 0; l < layers_.size(); ++l) {
    Var below = l > 0 ? ops::matmul(out.state[l - 1], g[w_hb_[l - 1]]) : Var{};
    u.push_back(layers_[l].preact(g, x, s[l], below));
    out.state.push_back(ops::tanh(u.back()));
  }
  out.preact = u.size() == 1 ? u[0] : ops::concat(u, 1);
  return out;
}

Var StackedMrnnCell::readout(const State& s) const { return s.size() == 1 ? s[0] : ops::concat(s, 1); }

ModelInfo stacked_mrnn_info() {
  return cell_model_info(
      "stacked_mrnn", "stacked mRNN: direct input and output connections at every layer", "001",
      {{"layers", {150, 130, 110}}, {"factors", nlohmann::json::array()}, {"bias", true}}, false,
      [](ParamBuilder& p, const CommonOptions& c, const OptionReader& o) {
        const std::vector<int64_t> sizes = o.sizes("layers");
        std::vector<int64_t> factors = sizes;  // [] : one factor per hidden unit, as in Krause
        if (!(o.json().at("factors").is_array() && o.json().at("factors").empty())) factors = o.sizes("factors");
        if (factors.size() != sizes.size())
          o.fail("option 'factors' needs one entry per layer (or [] for as many factors as units)");
        std::vector<MrnnOptions> layers;
        for (size_t l = 0; l < sizes.size(); ++l)
          layers.push_back({sizes[l], factors[l], o.flag("bias"), c.learned_h0});
        return std::make_unique<StackedMrnnCell>(p, c.input(), layers);
      });
}

}  // namespace tg::models
