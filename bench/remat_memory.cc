// Peak memory of rematerialisation (objective option remat_segments, core/remat.h): one evaluation of
// a character LSTM objective on a random batch, its gradient and Gauss-Newton products, with the full
// tape (--remat 0) or the unroll cut into segments. Run it under /usr/bin/time -v (scripts/remat_memory.sh)
// for the process's peak resident set; it prints the times, the tape's value bytes and getrusage's
// peak as one JSON line.
//   tapegrad_remat_memory --steps 1000 --remat -1
#include <sys/resource.h>

#include <chrono>
#include <cstdio>
#include <random>

#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include "core/error.h"
#include "core/remat.h"
#include "models/model.h"
#include "models/objective.h"
#include "optim/remat_evaluation.h"

namespace {
double seconds_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}
}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"peak memory and time of the gradient and Gauss-Newton products with and without rematerialisation"};
  std::string model = "lstm", dtype = "float32";
  int64_t vocab = 96, hidden = 256, batch = 32, steps = 1000, remat = 0, products = 3;
  uint64_t seed = 1;
  app.add_option("--model", model, "a cell model (registry name)");
  app.add_option("--vocab", vocab, "input and output symbols");
  app.add_option("--hidden", hidden, "hidden units");
  app.add_option("--batch", batch, "sequences");
  app.add_option("--steps", steps, "time steps T");
  app.add_option("--remat", remat, "remat_segments: 0 full tape, -1 round(sqrt T), N segments");
  app.add_option("--products", products, "Gauss-Newton products after the gradient");
  app.add_option("--dtype", dtype, "float32 or float64")->check(CLI::IsMember({"float32", "float64"}));
  app.add_option("--seed", seed, "parameters and data");
  CLI11_PARSE(app, argc, argv);
  try {
    const tg::DType dt = dtype == "float32" ? tg::DType::f32 : tg::DType::f64;
    const tg::models::ModelInfo& info = tg::models::find(model);
    tg::Rng rng(seed);
    auto m = info.make(tg::models::resolve(info, {{"vocab", vocab}, {"hidden", hidden}}), dt, rng);
    tg::models::ObjectiveOptions opt;
    opt.remat_segments = remat;
    opt.structural = "none";  // the main Gauss-Newton block only, as for a plain HF step
    tg::models::ModelObjective obj(std::move(m), opt);

    tg::tasks::Batch b;
    b.inputs.T = steps;
    b.inputs.B = batch;
    std::uniform_int_distribution<int32_t> sym(0, static_cast<int32_t>(vocab - 1));
    auto symbols = [&] {
      std::vector<int32_t> s(static_cast<size_t>(batch));
      for (int32_t& x : s) x = sym(rng);
      return tg::ops::make_index(std::move(s));
    };
    for (int64_t t = 0; t < steps; ++t) {
      b.inputs.symbols.push_back(symbols());
      b.targets.symbols.push_back(symbols());
    }
    const tg::ParamVec theta = obj.params().values().clone();
    tg::ParamVec v = tg::ParamVec::random_normal(obj.params().layout(), obj.params().dtype(), rng);

    auto t0 = std::chrono::steady_clock::now();
    auto ev = obj.evaluate(theta, b);
    const double t_forward = seconds_since(t0);
    t0 = std::chrono::steady_clock::now();
    const tg::ParamVec g = ev->grad();
    const double t_grad = seconds_since(t0);
    // the full tape's first product also builds its segment; later ones replay derivative nodes only
    double t_gn_first = 0, t_gn_rest = 0, gn_norm = 0;
    for (int64_t k = 0; k < products; ++k) {
      t0 = std::chrono::steady_clock::now();
      gn_norm = ev->gnvp(v).norm();
      (k == 0 ? t_gn_first : t_gn_rest) += seconds_since(t0);
    }
    nlohmann::json out = {{"model", model},         {"dtype", dtype},       {"steps", steps},
                          {"batch", batch},         {"hidden", hidden},     {"vocab", vocab},
                          {"remat", remat},         {"loss", ev->value()},  {"grad_norm", g.norm()},
                          {"gn_norm", gn_norm},     {"forward_s", t_forward}, {"grad_s", t_grad},
                          {"gn_first_s", t_gn_first},
                          {"gn_later_s_each", products > 1 ? t_gn_rest / static_cast<double>(products - 1) : 0.0}};
    if (auto* r = dynamic_cast<tg::optim::RematEvaluation*>(ev.get())) {
      out["segments"] = r->remat().segments();
      out["tape_bytes"] = r->remat().max_graph_bytes();  // the largest segment graph
      out["tape_nodes"] = r->remat().max_graph_nodes();
    } else {
      out["segments"] = 0;
      out["tape_bytes"] = tg::ad::value_bytes(ev->graph());
      out["tape_nodes"] = ev->graph().size();
    }
    rusage ru{};
    getrusage(RUSAGE_SELF, &ru);
    out["maxrss_kb"] = ru.ru_maxrss;
    std::printf("%s\n", out.dump().c_str());
  } catch (const tg::Error& e) {
    std::fprintf(stderr, "tapegrad_remat_memory: %s\n", e.what());
    return 2;
  }
  return 0;
}
