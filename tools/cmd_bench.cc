// tapegrad bench: the engine benchmark (LSTM character LM; forward, gradient, cached JVP and
// Gauss-Newton products, graph overhead), or with --model a zoo model's training step beside a plain
// cblas gemm of the same shapes, or with --network the same for a feedforward network (the
// autoencoder or the MLP) on random images. A readable table, or one JSON object with --json.
#include <fmt/format.h>

#include <memory>

#include "bench/lstm_lm.h"
#include "bench/network_step.h"
#include "bench/zoo_step.h"
#include "core/error.h"
#include "models/model.h"
#include "ops/blas.h"
#include "ops/float_env.h"
#include "tools/cli_checks.h"
#include "tools/commands.h"

namespace tg::cli {

Run add_bench(CLI::App& app) {
  auto opt = std::make_shared<bench::EngineBenchOptions>();
  auto json = std::make_shared<bool>(false);
  auto model = std::make_shared<std::string>();
  auto network = std::make_shared<std::string>();
  auto encoder = std::make_shared<std::string>("784-1000-500-250-30");
  auto layers = std::make_shared<std::string>("784-1000-500-10");
  auto ctc = std::make_shared<bool>(false);
  auto in = std::make_shared<int64_t>(39);
  auto depth = std::make_shared<int64_t>(3);
  auto gemm = std::make_shared<std::string>();  // unset: TAPEGRAD_GEMM, or auto
  auto denormals = std::make_shared<std::string>("flush");
  app.add_option("--vocab", opt->workload.vocab, "vocabulary size V")->check(integer_in(2, 100000));
  app.add_option("--hidden", opt->workload.hidden, "hidden units H")->check(integer_in(1, 8192));
  CLI::Option* batch =
      app.add_option("--batch", opt->workload.batch, "sequences (images with --network) per batch B; --network: 200")
          ->check(integer_in(1, 100000));
  app.add_option("--steps", opt->workload.steps, "unrolled time steps T")->check(integer_in(1, 100000));
  app.add_option("--reps", opt->reps, "timed repetitions per pass (the median is reported)")
      ->check(integer_in(1, 1000));
  app.add_option("--threads", opt->threads,
                 "threads: with --model, the batch split between them as train does; otherwise BLAS threads")
      ->check(integer_in(1, 256));
  app.add_option("--denormals", *denormals, "subnormal floats: flush (to zero, as train does by default) or keep")
      ->check(CLI::IsMember({"flush", "keep"}))
      ->capture_default_str();
  app.add_option("--gemm", *gemm,
                 "float32 gemm backend: auto (oneDNN for large products when libdnnl.so.2 loads), openblas, onednn "
                 "(default: environment variable TAPEGRAD_GEMM, or auto)")
      ->check(CLI::IsMember({"auto", "openblas", "onednn"}));
  app.add_flag("--json", *json, "print one JSON object instead of a table");
  app.add_option("--model", *model,
                 "time a zoo model's training step (e.g. lstm, mlstm, mrnn) and the gemms it runs, instead of "
                 "the engine benchmark");
  auto* network_opt =
      app.add_option("--network", *network,
                     "time a feedforward network's training step (autoencoder or mlp) on random images and the gemms "
                     "it runs, instead of the engine benchmark")
          ->check(CLI::IsMember({"autoencoder", "mlp"}));
  app.add_option("--encoder", *encoder, "--network autoencoder: the encoder's sizes (the decoder mirrors them)")
      ->capture_default_str();
  app.add_option("--layers", *layers, "--network mlp: inputs-hidden...-classes")->capture_default_str();
  network_opt->excludes(app.get_option("--model"));
  app.add_flag("--ctc", *ctc,
               "--model deep_blstm: a CTC step on random frames (--in features) and label sequences (T/10 labels); "
               "--vocab classes with the blank last, --depth layers of --hidden units per direction");
  app.add_option("--in", *in, "--ctc: input features per frame")->check(integer_in(1, 100000))->capture_default_str();
  app.add_option("--depth", *depth, "--ctc: layers")->check(integer_in(1, 100))->capture_default_str();
  // a mode's options without their mode would be ignored silently
  app.get_option("--encoder")->needs(network_opt);
  app.get_option("--layers")->needs(network_opt);
  app.get_option("--ctc")->needs(app.get_option("--model"));
  app.get_option("--in")->needs(app.get_option("--ctc"));
  app.get_option("--depth")->needs(app.get_option("--ctc"));
  return [opt, json, model, network, encoder, layers, batch, ctc, in, depth, gemm, denormals] {
    blas::set_gemm_backend(*gemm);
    fenv::set_flush_denormals(*denormals == "flush");
    if (!network->empty()) {
      bench::NetworkStepConfig c{.network = *network, .layers = *network == "mlp" ? *layers : *encoder,
                                 .reps = opt->reps, .threads = opt->threads};
      if (batch->count() > 0) c.batch = opt->workload.batch;
      bench::NetworkStepResult r = bench::run_network_step(c);
      if (*json) fmt::print("{}\n", bench::to_json(r).dump(2));
      else fmt::print("{}", bench::to_table(r));
      return 0;
    }
    if (!model->empty()) {
      // --ctc sets the model's `layers` from --depth: a model without one was told "unknown option 'layers'"
      if (*ctc && !models::find(*model).defaults.contains("layers"))
        throw Error(fmt::format("bench --ctc stacks --depth layers, and model '{}' has no layers option (use --model "
                                "deep_blstm)",
                                *model));
      bench::ZooStepConfig c{.model = *model, .vocab = opt->workload.vocab, .hidden = opt->workload.hidden,
                             .batch = opt->workload.batch, .steps = opt->workload.steps, .ctc = *ctc, .in = *in,
                             .depth = *depth, .reps = opt->reps, .threads = opt->threads};
      bench::ZooStepResult r = bench::run_zoo_step(c);
      if (*json) fmt::print("{}\n", bench::to_json(r).dump(2));
      else fmt::print("{}", bench::to_table(r));
      return 0;
    }
    opt->tiny.vocab = opt->workload.vocab;  // the overhead graph differs from the workload only in H, B
    bench::EngineBenchResult r = bench::run_engine_bench(*opt);
    if (*json) fmt::print("{}\n", bench::to_json(r).dump(2));
    else fmt::print("{}", bench::to_table(r));
    return 0;
  };
}

}  // namespace tg::cli
