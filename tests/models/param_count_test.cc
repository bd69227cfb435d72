// Parameter counts: Krause's tables (001 §1, solved from Tables 4.1-4.4, 5.1, 5.2) and Sutskever's
// "about 4.9M" MRNN (000 §1.6), with the option settings that reproduce them.
#include <gtest/gtest.h>

#include "models/model.h"

namespace tg {
namespace {

int64_t count(const std::string& model, const nlohmann::json& options) {
  const models::ModelInfo& info = models::find(model);
  Rng rng(1);
  return info.make(models::resolve(info, options), DType::f32, rng)->params().numel();
}

TEST(ParamCount, KrauseRnn) {  // hV + h² + h + Vh: hidden bias, zero h0, no output bias
  EXPECT_EQ(count("rnn", {{"vocab", 70}, {"hidden", 400}, {"output_bias", false}}), 216400);
}

TEST(ParamCount, KrauseLstm) {  // 4h(V + h) + Vh: no biases anywhere
  EXPECT_EQ(count("lstm_krause", {{"vocab", 70}, {"hidden", 195}}), 220350);
}

TEST(ParamCount, KrauseMrnn) {  // 3hV + 2h² + h: factors = hidden, hidden bias, no output bias
  EXPECT_EQ(count("mrnn", {{"vocab", 70}, {"hidden", 280}, {"output_bias", false}}), 215880);
}

TEST(ParamCount, KrauseStackedMrnn) {  // Σ_l (2h_l² + 3h_l V + h_l) + Σ_{l>1} h_l h_{l-1}
  EXPECT_EQ(count("stacked_mrnn", {{"vocab", 70}, {"layers", {150, 130, 110}}, {"output_bias", false}}), 219090);
}

TEST(ParamCount, KrauseMlstm) {  // 5h² + 6hV
  EXPECT_EQ(count("mlstm", {{"vocab", 70}, {"hidden", 170}}), 215900);
  EXPECT_EQ(count("mlstm", {{"vocab", 85}, {"hidden", 300}}), 603000);
  EXPECT_EQ(count("mlstm", {{"vocab", 85}, {"hidden", 800}}), 3608000);
  EXPECT_EQ(count("mlstm", {{"vocab", 99}, {"hidden", 2000}}), 21188000);
}

TEST(ParamCount, SutskeverMrnnIsAbout4Point9Million) {
  // 2·1500² + 3·1500·86 + 86 (no b_h; b_o): 4,887,086, "4,900,000 parameters" in the thesis;
  // a learned h_0 (the thesis's RNN convention, unstated for the MRNN) adds 1500.
  const nlohmann::json o = {{"vocab", 86}, {"hidden", 1500}, {"factors", 1500}, {"bias", false}};
  EXPECT_EQ(count("mrnn", o), 4887086);
  nlohmann::json with_h0 = o;
  with_h0["learned_h0"] = true;
  EXPECT_EQ(count("mrnn", with_h0), 4888586);
}

TEST(ParamCount, ClosedFormsOfTheOtherFamilies) {
  const int64_t V = 7, H = 5, N = 4;
  // GRU: 3 input blocks, 3 recurrent blocks, 3 biases; output with bias.
  EXPECT_EQ(count("gru", {{"vocab", V}, {"hidden", H}}), 3 * V * H + 3 * H * H + 3 * H + H * V + V);
  // Standard LSTM: 4 gates with biases; learned h0 and c0.
  EXPECT_EQ(count("lstm", {{"vocab", V}, {"hidden", H}, {"learned_h0", true}}),
            4 * (V * H + H * H + H) + 2 * H + H * V + V);
  // 1997 LSTM: 3 gate blocks, no biases by default.
  EXPECT_EQ(count("lstm1997", {{"vocab", V}, {"hidden", H}}), 3 * (V * H + H * H) + H * V + V);
  // Peepholes: three diagonal vectors.
  EXPECT_EQ(count("lstm_peephole", {{"vocab", V}, {"hidden", H}}), 4 * (V * H + H * H + H) + 3 * H + H * V + V);
  // Sutskever's LSTM: tanh layer H, N cells, b_f only; output reads [h m̃].
  EXPECT_EQ(count("lstm_sutskever", {{"vocab", V}, {"hidden", H}, {"cells", N}}),
            V * H + H * H + N * H + 4 * N * (V + H + N) + N + (H + N) * V + V);
  // Tensor RNN: one H×H matrix per symbol.
  EXPECT_EQ(count("tensor_rnn", {{"vocab", V}, {"hidden", H}}), V * H * H + V * H + H + H * V + V);
  // mRNN with a separate factor count F: W_fx, W_fh, W_hf, W_hx, b_h, W_oh, b_o.
  const int64_t F = 9;
  EXPECT_EQ(count("mrnn", {{"vocab", V}, {"hidden", H}, {"factors", F}}), V * F + H * F + F * H + V * H + H + H * V + V);
  // Dense inputs and a different output size.
  EXPECT_EQ(count("rnn", {{"vocab", 0}, {"in", 3}, {"out", 2}, {"hidden", H}}), 3 * H + H * H + H + H * 2 + 2);
}

}  // namespace
}  // namespace tg
