#include "models/param_builder.h"

#include <fmt/format.h>

#include "core/error.h"

namespace tg::models {

ParamBuilder ParamBuilder::scoped(const std::string& sub) const {
  return ParamBuilder(*ps_, full(sub), opt_, *rng_);
}

ParamId ParamBuilder::add(const std::string& name, const Shape& shape, const Init& init) {
  return ps_->add(full(name), shape, init, rng_);
}

ParamId ParamBuilder::scaled_weight(const std::string& name, int64_t rows, int64_t cols, int64_t blocks,
                                    double factor) {
  Init base = opt_.weights(opt_.scheme);
  if (factor != 1.0) base = init::scaled(base, factor);
  return add(name, {rows, cols}, init::blockwise(blocks, base));
}

ParamId ParamBuilder::weight(const std::string& name, int64_t rows, int64_t cols, int64_t blocks) {
  return scaled_weight(name, rows, cols, blocks, 1.0);
}

ParamId ParamBuilder::input(const std::string& name, int64_t rows, int64_t cols, int64_t blocks) {
  return scaled_weight(name, rows, cols, blocks, opt_.input_scale);
}

ParamId ParamBuilder::output(const std::string& name, int64_t rows, int64_t cols) {
  return scaled_weight(name, rows, cols, 1, opt_.output_scale);
}

Init ParamBuilder::recurrent_init() const {
  Init base = opt_.weights(opt_.recurrent == "same" ? opt_.scheme : opt_.recurrent);
  if (opt_.spectral_radius > 0) base = init::with_spectral_radius(base, opt_.spectral_radius);
  return base;
}

ParamId ParamBuilder::recurrent(const std::string& name, int64_t rows, int64_t cols, int64_t blocks) {
  if (blocks < 1 || cols % blocks != 0 || cols / blocks != rows)
    throw Error(fmt::format("ParamBuilder: recurrent weight '{}' [{},{}] is not {} square blocks", full(name), rows,
                            cols, blocks));
  return add(name, {rows, cols}, init::blockwise(blocks, recurrent_init()));
}

}  // namespace tg::models
