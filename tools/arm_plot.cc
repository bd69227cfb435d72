#include "tools/arm_plot.h"

#include <fmt/format.h>

#include <algorithm>
#include <vector>

#include "core/error.h"
#include "tasks/reaching.h"
#include "tools/loaded_run.h"
#include "tools/plot.h"

namespace tg::cli {

namespace {
constexpr int kBlue = 0x1f5fbf, kRed = 0xd62728;

// Each reach's hand path as one data block "x y colour" (cm), then one block of the targets and one of
// the starts.
std::string trajectory_blocks(const tasks::ReachBatch& b, const std::vector<Tensor>& states, const tasks::ArmParams& p) {
  std::string text;
  auto point = [&](double theta, double phi) {
    const auto h = tasks::hand_at(p, theta, phi);
    return std::array<double, 2>{100 * h[0], 100 * h[1]};
  };
  for (int64_t i = 0; i < b.count; ++i) {
    const int64_t onset = b.onset.empty() ? -1 : b.onset[static_cast<size_t>(i)];
    auto colour = [&](int64_t t) { return onset >= 0 && t > onset ? kRed : kBlue; };
    const auto s = point(b.starts[static_cast<size_t>(i * 4)], b.starts[static_cast<size_t>(i * 4 + 1)]);
    text += fmt::format("{:.5f} {:.5f} {}\n", s[0], s[1], colour(0));
    for (size_t t = 0; t < states.size(); ++t) {
      const auto h = point(states[t].at(i * 4), states[t].at(i * 4 + 1));
      text += fmt::format("{:.5f} {:.5f} {}\n", h[0], h[1], colour(static_cast<int64_t>(t) + 1));
    }
    text += "\n\n";
  }
  for (const auto* v : {&b.targets, &b.starts}) {
    for (int64_t i = 0; i < b.count; ++i) {
      const auto h = point((*v)[static_cast<size_t>(i * 4)], (*v)[static_cast<size_t>(i * 4 + 1)]);
      text += fmt::format("{:.5f} {:.5f}\n", h[0], h[1]);
    }
    text += "\n\n";
  }
  return text;
}
}  // namespace

std::string plot_trajectories(const std::string& run_dir, const std::string& out_png, int64_t count) {
  LoadedRun r = load_run(run_dir, "plot --trajectories");
  const auto* task = dynamic_cast<const tasks::ReachTask*>(r.run.train.get());
  if (!task)
    throw Error(fmt::format("plot --trajectories: run {} is not an arm controller on a reaching task (model '{}', task "
                            "'{}')",
                            run_dir, r.run.cfg.model, r.run.cfg.task));
  const tasks::Dataset& data = r.run.test ? *r.run.test : *r.run.train;
  const int64_t n = std::min(count > 0 ? count : r.run.test ? 32 : data.num_cases(), data.num_cases());
  if (n < 1)
    throw Error(fmt::format("plot --trajectories: task '{}' of run {} has no fixed reaches to draw (DDN with pool 0 "
                            "draws them from its test part)",
                            r.run.cfg.task, run_dir));
  const auto batch = data.cases(0, n);
  const auto& reaches = tasks::data_as<tasks::ReachBatch>(*batch);
  auto ev = r.run.objective->evaluate(r.theta, reaches);
  const std::vector<Tensor> outputs = ev->output_values();
  const int64_t T = task->spec().cost.steps;
  const std::vector<Tensor> states(outputs.begin(), outputs.begin() + T);  // x_1 .. x_T, then the torques
  const double score = data.score(reaches, outputs);
  // DDN (Fig. 6.4): the same reaches without the disturbance, drawn in grey beneath, show what it changed
  std::string undisturbed;
  if (!reaches.disturbance.empty()) {
    tasks::ReachBatch calm = reaches;
    calm.disturbance.clear();
    calm.onset.clear();
    const std::vector<Tensor> o = r.run.objective->evaluate(r.theta, calm)->output_values();
    undisturbed = trajectory_blocks(calm, std::vector<Tensor>(o.begin(), o.begin() + T), task->spec().plant.arm);
  }
  const std::string png = out_png.empty() ? run_dir + "/trajectories.png" : out_png;
  const std::string title = fmt::format("{}: controller on {}, {}", run_dir, r.run.cfg.task, r.run.cfg.optimizer);
  std::string caption = fmt::format("{} reaches of {} steps; loss {:.4g}; {} {:.3g}", n, T, ev->value(),
                                    tasks::measure(r.run.cfg.task).name, score);
  if (!reaches.onset.empty()) caption += "\nblue: disturbance off, red: on; grey: the same reaches undisturbed";
  // data blocks: the paths (n), the targets, the starts, then the undisturbed paths (n) if any
  return render_gnuplot_png(png, trajectory_blocks(reaches, states, task->spec().plant.arm) + undisturbed,
                            [&](const std::string& data_file, const std::string& drawn) {
                              std::string s = "set encoding utf8\n" + gnuplot_terminal(800, 800);
                              s += fmt::format("set output {}\n", gnuplot_quote(drawn));
                              s += "set title " + gnuplot_quote(title);
                              size_t from = 0;  // each caption line joined by a gnuplot newline
                              for (size_t nl; (nl = caption.find('\n', from)) != std::string::npos; from = nl + 1)
                                s += " . \"\\n\" . " + gnuplot_quote(caption.substr(from, nl - from));
                              s += " . \"\\n\" . " + gnuplot_quote(caption.substr(from)) + "\n";
                              s += "set size ratio -1\nset grid\nunset key\n";
                              s += "set xlabel 'hand x (cm from the shoulder)'\nset ylabel 'hand y (cm)'\n";
                              s += "plot ";
                              if (!undisturbed.empty())
                                s += fmt::format("for [i={}:{}] {} index i using 1:2 with lines lw 1 lc rgb 'gray70', ",
                                                 n + 2, 2 * n + 1, gnuplot_quote(data_file));
                              s += fmt::format("for [i=0:{}] {} index i using 1:2:3 with lines lw 1.2 lc rgb variable, ",
                                               n - 1, gnuplot_quote(data_file));
                              s += fmt::format("{} index {} using 1:2 with points pt 6 ps 1.6 lc rgb 'black', ",
                                               gnuplot_quote(data_file), n);
                              s += fmt::format("{} index {} using 1:2 with points pt 7 ps 0.8 lc rgb 'gray30'\n",
                                               gnuplot_quote(data_file), n + 1);
                              s += "set output\n";
                              return s;
                            });
}

}  // namespace tg::cli
