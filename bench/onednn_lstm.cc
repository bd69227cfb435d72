// The reference point for an LSTM training step: oneDNN's own LSTM primitive (forward training
// and backward, Debian libdnnl-dev 2.6) with the same output layer tapegrad's char model has (a linear
// map to V logits per step, softmax cross-entropy), on one-hot inputs, timed as one step: weights
// reordered into the primitive's layouts, forward, output layer, its gradient, backward, the weight
// gradients reordered back. Prints one JSON line: the median and fastest of --reps rounds (after one
// warm-up) and the first step's loss (ln V at the start). scripts/bench_vs_torch.py runs it beside
// tapegrad and PyTorch. Explicit zero initial states are passed: oneDNN 2.6.3 gave a wrong recurrent
// weight gradient when they were left empty (seen by the author).
#include <dnnl.hpp>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <string>
#include <vector>

using namespace dnnl;
using tag = memory::format_tag;
using dt = memory::data_type;

namespace {
struct Args {
  int64_t V = 96, H = 256, B = 32, T = 100;
  int reps = 5;
};

Args parse(int argc, char** argv) {
  Args a;
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string k = argv[i];
    const long v = std::atol(argv[i + 1]);
    if (k == "--vocab") a.V = v;
    else if (k == "--hidden") a.H = v;
    else if (k == "--batch") a.B = v;
    else if (k == "--steps") a.T = v;
    else if (k == "--reps") a.reps = static_cast<int>(v);
    else {
      std::fprintf(stderr, "onednn_lstm: unknown option %s (--vocab --hidden --batch --steps --reps)\n", k.c_str());
      std::exit(2);
    }
  }
  return a;
}

float* ptr(memory& m) { return static_cast<float*>(m.get_data_handle()); }
}  // namespace

int main(int argc, char** argv) {
  const Args a = parse(argc, argv);
  const int64_t V = a.V, H = a.H, B = a.B, T = a.T, G = 4;
  engine eng(engine::kind::cpu, 0);
  stream s(eng);
  std::mt19937 rng(1);
  std::normal_distribution<float> nd(0.f, 0.1f);
  std::uniform_int_distribution<int64_t> sym(0, V - 1);

  auto md = [](memory::dims d, tag t) { return memory::desc(d, dt::f32, t); };
  const memory::desc src_md = md({T, B, V}, tag::tnc), dst_md = md({T, B, H}, tag::tnc);
  const memory::desc state_md = md({1, 1, B, H}, tag::ldnc), bias_md = md({1, 1, G, H}, tag::ldgo);
  const memory::desc wl_user = md({1, 1, V, G, H}, tag::ldigo), wi_user = md({1, 1, H, G, H}, tag::ldigo);
  const memory::desc wl_any = md({1, 1, V, G, H}, tag::any), wi_any = md({1, 1, H, G, H}, tag::any);

  lstm_forward::desc fd(prop_kind::forward_training, rnn_direction::unidirectional_left2right, src_md, state_md,
                        state_md, wl_any, wi_any, bias_md, dst_md, state_md, state_md);
  lstm_forward::primitive_desc fpd(fd, eng);
  lstm_backward::desc bd(prop_kind::backward, rnn_direction::unidirectional_left2right, src_md, state_md, state_md,
                         wl_any, wi_any, bias_md, dst_md, state_md, state_md, src_md, state_md, state_md, wl_any,
                         wi_any, bias_md, dst_md, state_md, state_md);
  lstm_backward::primitive_desc bpd(bd, eng, fpd);

  // the user's tensors
  memory x(src_md, eng), h0(state_md, eng), c0(state_md, eng), bias(bias_md, eng), wl(wl_user, eng), wi(wi_user, eng);
  memory y(dst_md, eng), hT(state_md, eng), cT(state_md, eng), dy(dst_md, eng), dx(src_md, eng);
  memory dh0(state_md, eng), dc0(state_md, eng), dhT(state_md, eng), dcT(state_md, eng), dbias(bias_md, eng);
  memory dwl(wl_user, eng), dwi(wi_user, eng);
  auto fill = [&](memory& m, bool random) {
    const size_t n = m.get_desc().get_size() / sizeof(float);
    for (size_t i = 0; i < n; ++i) ptr(m)[i] = random ? nd(rng) : 0.f;
  };
  for (memory* m : {&wl, &wi, &bias}) fill(*m, true);
  for (memory* m : {&h0, &c0, &dhT, &dcT}) fill(*m, false);  // explicit zero states (see the header)
  fill(x, false);
  std::vector<int64_t> target(static_cast<size_t>(T * B));
  for (int64_t t = 0; t < T; ++t)
    for (int64_t b = 0; b < B; ++b) {
      ptr(x)[(t * B + b) * V + sym(rng)] = 1.f;  // one-hot input
      target[static_cast<size_t>(t * B + b)] = sym(rng);
    }
  std::vector<float> w_out(static_cast<size_t>(H * V)), b_out(static_cast<size_t>(V), 0.f), logits(static_cast<size_t>(T * B * V)),
      dw_out(static_cast<size_t>(H * V));
  for (float& w : w_out) w = nd(rng);

  // the primitives' own layouts
  memory wl_f(fpd.weights_layer_desc(), eng), wi_f(fpd.weights_iter_desc(), eng);
  memory wl_b(bpd.weights_layer_desc(), eng), wi_b(bpd.weights_iter_desc(), eng);
  memory dwl_b(bpd.diff_weights_layer_desc(), eng), dwi_b(bpd.diff_weights_iter_desc(), eng);
  memory ws(fpd.workspace_desc(), eng);
  lstm_forward fwd(fpd);
  lstm_backward bwd(bpd);

  auto step = [&]() -> double {
    reorder(wl, wl_f).execute(s, wl, wl_f);
    reorder(wi, wi_f).execute(s, wi, wi_f);
    fwd.execute(s, {{DNNL_ARG_SRC_LAYER, x}, {DNNL_ARG_SRC_ITER, h0}, {DNNL_ARG_SRC_ITER_C, c0},
                    {DNNL_ARG_WEIGHTS_LAYER, wl_f}, {DNNL_ARG_WEIGHTS_ITER, wi_f}, {DNNL_ARG_BIAS, bias},
                    {DNNL_ARG_DST_LAYER, y}, {DNNL_ARG_DST_ITER, hT}, {DNNL_ARG_DST_ITER_C, cT},
                    {DNNL_ARG_WORKSPACE, ws}});
    s.wait();
    // output layer over all T * B rows at once, softmax cross-entropy and its gradient
    const int64_t N = T * B;
    dnnl_sgemm('N', 'N', N, V, H, 1.f, ptr(y), H, w_out.data(), V, 0.f, logits.data(), V);
    double loss = 0;
    for (int64_t r = 0; r < N; ++r) {
      float* z = &logits[static_cast<size_t>(r * V)];
      float m = z[0];
      for (int64_t v = 0; v < V; ++v) z[v] += b_out[static_cast<size_t>(v)], m = std::max(m, z[v]);
      double sum = 0;
      for (int64_t v = 0; v < V; ++v) sum += std::exp(double(z[v] - m));
      loss += std::log(sum) + m - z[target[static_cast<size_t>(r)]];
      for (int64_t v = 0; v < V; ++v) z[v] = static_cast<float>(std::exp(double(z[v] - m)) / sum / double(N));
      z[target[static_cast<size_t>(r)]] -= 1.f / static_cast<float>(N);
    }
    dnnl_sgemm('T', 'N', H, V, N, 1.f, ptr(y), H, logits.data(), V, 0.f, dw_out.data(), V);
    dnnl_sgemm('N', 'T', N, H, V, 1.f, logits.data(), V, w_out.data(), V, 0.f, ptr(dy), H);
    reorder(wl, wl_b).execute(s, wl, wl_b);
    reorder(wi, wi_b).execute(s, wi, wi_b);
    bwd.execute(s, {{DNNL_ARG_SRC_LAYER, x}, {DNNL_ARG_SRC_ITER, h0}, {DNNL_ARG_SRC_ITER_C, c0},
                    {DNNL_ARG_WEIGHTS_LAYER, wl_b}, {DNNL_ARG_WEIGHTS_ITER, wi_b}, {DNNL_ARG_BIAS, bias},
                    {DNNL_ARG_DST_LAYER, y}, {DNNL_ARG_DST_ITER, hT}, {DNNL_ARG_DST_ITER_C, cT},
                    {DNNL_ARG_DIFF_SRC_LAYER, dx}, {DNNL_ARG_DIFF_SRC_ITER, dh0}, {DNNL_ARG_DIFF_SRC_ITER_C, dc0},
                    {DNNL_ARG_DIFF_WEIGHTS_LAYER, dwl_b}, {DNNL_ARG_DIFF_WEIGHTS_ITER, dwi_b},
                    {DNNL_ARG_DIFF_BIAS, dbias}, {DNNL_ARG_DIFF_DST_LAYER, dy}, {DNNL_ARG_DIFF_DST_ITER, dhT},
                    {DNNL_ARG_DIFF_DST_ITER_C, dcT}, {DNNL_ARG_WORKSPACE, ws}});
    reorder(dwl_b, dwl).execute(s, dwl_b, dwl);
    reorder(dwi_b, dwi).execute(s, dwi_b, dwi);
    s.wait();
    return loss / static_cast<double>(N);
  };

  const double first_loss = step();  // warm-up (kernels generated)
  std::vector<double> ms;
  for (int r = 0; r < a.reps; ++r) {
    const auto t0 = std::chrono::steady_clock::now();
    step();
    ms.push_back(std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count());
  }
  std::sort(ms.begin(), ms.end());
  const double median = ms[ms.size() / 2];
  std::printf("{\"onednn_lstm_ms\": %.3f, \"min_ms\": %.3f, \"loss\": %.4f, \"V\": %ld, \"H\": %ld, \"B\": %ld, \"T\": %ld}\n",
              median, ms.front(), first_loss, static_cast<long>(V), static_cast<long>(H), static_cast<long>(B),
              static_cast<long>(T));
}
