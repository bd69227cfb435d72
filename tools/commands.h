// Subcommands of the `tapegrad` command; each registers its options and returns its exit code.
#pragma once
#include <CLI/CLI.hpp>
#include <functional>

namespace tg::cli {
using Run = std::function<int()>;
Run add_gradcheck(CLI::App& app);
Run add_models(CLI::App& app);
Run add_params(CLI::App& app);
Run add_bench(CLI::App& app);
Run add_train(CLI::App& app);
Run add_eval(CLI::App& app);
Run add_sample(CLI::App& app);
Run add_reconstruct(CLI::App& app);
Run add_video(CLI::App& app);
Run add_gated(CLI::App& app);
Run add_plot(CLI::App& app);
Run add_tasks(CLI::App& app);
Run add_ollivier(CLI::App& app);
Run add_ilqr(CLI::App& app);
}  // namespace tg::cli
