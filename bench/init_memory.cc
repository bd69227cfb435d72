// How much of the first inputs a freshly initialised RNN still carries when it must recall them: on the
// 5-bit memorization task (000 §3.1), the hidden state at chosen steps for the 32 distinct sequences;
// per bit, the mean distance between the states of the pairs of sequences that differ in that bit only.
// A distance near zero at the trigger step means the bits are forgotten before training begins, which no
// gradient method can undo from there (docs/results/hf_grid.md, Table 7.3's memorization probes).
//   tapegrad_init_memory --radius 1.2 --T 200 --seed 1 [--input-scale 1.1619] [--blank zero]
// The model is Table 7.3's (scripts/experiments/table73.sh): rnn, 100 tanh units, sparse init with
// spectral radius `radius`, float64.
#include <CLI/CLI.hpp>
#include <cmath>
#include <cstdio>
#include <vector>

#include "core/error.h"
#include "core/graph.h"
#include "tasks/example.h"
#include "models/model.h"
#include "tasks/task.h"

using namespace tg;

namespace {
// The Euclidean distance between the states of sequences a and b (rows of h).
double distance(const Tensor& h, int64_t a, int64_t b) {
  const int64_t H = h.shape()[1];
  double d = 0;
  for (int64_t k = 0; k < H; ++k) {
    const double x = h.at(a * H + k) - h.at(b * H + k);
    d += x * x;
  }
  return std::sqrt(d);
}
}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"per-bit distance between hidden states of 5-bit memorization sequences at initialisation"};
  double radius = 1.2, input_scale = 1.1619;
  int64_t T = 200;
  uint64_t seed = 1;
  std::string blank = "symbol";
  app.add_option("--radius", radius, "spectral radius of W_hh");
  app.add_option("--T", T, "the task's T (the trigger comes at step T + 5)");
  app.add_option("--seed", seed, "the model's init seed (as train --seed)");
  app.add_option("--input-scale", input_scale, "model_options.input_scale (1.1619: input weights N(0, 0.3²))");
  app.add_option("--blank", blank, "the task's blank option: symbol or zero")->check(CLI::IsMember({"symbol", "zero"}));
  CLI11_PARSE(app, argc, argv);
  try {
    auto task = tasks::make("memorization", {{"T", T}, {"bits", 5}, {"metric", "timestep"}, {"blank", blank}});
    const tasks::Signature sig = task->signature();
    const models::ModelInfo& info = models::find("rnn");
    nlohmann::json user = {{"out", sig.output_dim}, {"hidden", 100}, {"init", "sparse"}, {"init_scale", 0.2582},
                           {"input_scale", input_scale}, {"spectral_radius", radius}};
    if (sig.symbolic_input) user["vocab"] = sig.input_dim;
    else user.update({{"vocab", 0}, {"in", sig.input_dim}});
    Rng init(seed);
    auto model = info.make(models::resolve(info, user), DType::f64, init);
    // the 32 distinct sequences, sequence c the one whose first 5 inputs spell c in binary, picked from a
    // large enough draw
    Rng data(3);
    const tasks::Batch drawn = dynamic_cast<const tasks::Task&>(*task).sample(2000, data);
    std::vector<tasks::Example> by_code(32);
    for (tasks::Example& e : tasks::split(drawn, sig)) {
      int code = 0;
      for (int64_t t = 0; t < 5; ++t)
        code = 2 * code + (sig.symbolic_input ? e.input_symbols[t] : static_cast<int>(e.input_dense[t * sig.input_dim + 1]));
      if (by_code[code].length == 0) by_code[code] = std::move(e);
    }
    for (const tasks::Example& e : by_code)
      if (e.length == 0) throw Error("init_memory: a code is missing from the draw");
    Graph g;
    const models::Outputs out = model->unroll(g, tasks::collate(by_code, sig).inputs);
    std::printf("radius %g, T %lld, seed %llu, input scale %g, blank %s: per-bit state distance (bits 1..5)\n", radius,
                static_cast<long long>(T), static_cast<unsigned long long>(seed), input_scale, blank.c_str());
    for (int64_t step : {int64_t{5}, int64_t{25}, int64_t{50}, int64_t{100}, T + 5}) {
      if (step > static_cast<int64_t>(out.hidden.size())) continue;
      const Tensor& h = out.hidden[static_cast<size_t>(step - 1)].value();
      std::printf("  step %4lld:", static_cast<long long>(step));
      for (int j = 0; j < 5; ++j) {
        double d = 0;
        for (int a = 0; a < 32; ++a)
          if (const int c = a ^ (1 << (4 - j)); c > a) d += distance(h, a, c);
        std::printf(" %.2e", d / 16);
      }
      std::printf("%s\n", step == T + 5 ? "   (the trigger)" : "");
    }
  } catch (const Error& e) {
    std::fprintf(stderr, "tapegrad_init_memory: %s\n", e.what());
    return 2;
  }
}
