// tapegrad plot --run DIR [-o FILE.png]: training curves from DIR/metrics.jsonl; prints the PNG's path.
#include <fmt/format.h>

#include <memory>
#include <string>

#include "tools/commands.h"
#include "tools/plot.h"

namespace tg::cli {

Run add_plot(CLI::App& app) {
  auto run_dir = std::make_shared<std::string>();
  auto output = std::make_shared<std::string>();
  app.add_option("--run", *run_dir, "run directory holding metrics.jsonl")->required();
  app.add_option("-o,--output", *output, "PNG to write (default: RUN/curves.png)");
  return [run_dir, output] {
    fmt::print("{}\n", plot_run(*run_dir, *output));
    return 0;
  };
}

}  // namespace tg::cli
