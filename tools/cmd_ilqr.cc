// tapegrad ilqr: iLQR's open-loop torques for every center-out reach (models/ilqr.h), the gold standard
// for the arm controllers: each reach's loss, iterations and the CPU time, and optionally a JSON file
// with every reach's loss, torques and hand trajectory.
#include <fmt/format.h>

#include <time.h>

#include <chrono>
#include <cmath>
#include <memory>
#include <nlohmann/json.hpp>
#include <numbers>

#include "core/atomic_file.h"
#include "core/error.h"
#include "models/ilqr.h"
#include "tools/cli_checks.h"
#include "tools/commands.h"

namespace tg::cli {
namespace {

double process_cpu_seconds() {
  timespec ts{};
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) + 1e-9 * static_cast<double>(ts.tv_nsec);
}

// The hand's (x, y) at every state of a trajectory ((T+1)×4 row-major), by models::hand_position.
std::vector<std::array<double, 2>> hand_path(const std::vector<double>& states, const models::ArmParams& p) {
  const auto n = static_cast<int64_t>(states.size() / 4);
  Graph g;
  const std::vector<double> h = models::hand_position(g.input(Tensor::from({n, 4}, states, DType::f64)), p).value().to_vector();
  std::vector<std::array<double, 2>> out;
  for (int64_t i = 0; i < n; ++i) out.push_back({h[2 * i], h[2 * i + 1]});
  return out;
}

}  // namespace

Run add_ilqr(CLI::App& app) {
  auto reaches = std::make_shared<int64_t>(64);
  auto steps = std::make_shared<int64_t>(40);
  auto radius = std::make_shared<double>(0.10);
  auto alpha = std::make_shared<double>(1e-4);
  auto max_iters = std::make_shared<int>(200);
  auto tol = std::make_shared<double>(1e-10);
  auto out = std::make_shared<std::string>();
  auto quiet = std::make_shared<bool>(false);
  app.add_option("--reaches", *reaches, "targets on the circle, at angles 2πk/reaches")
      ->check(integer_in(1, 100'000));
  app.add_option("--steps", *steps, "steps of 0.01 s per reach")->check(integer_in(1, 100'000));
  app.add_option("--radius", *radius, "[m] of the circle of hand targets around the start's hand");
  app.add_option("--alpha", *alpha, "energy weight α of the loss ½‖x_T − x*‖² + α/2 Σ‖u_t‖²");
  app.add_option("--max-iters", *max_iters, "iLQR linearisations per reach")->check(integer_in(1, 1'000'000));
  app.add_option("--tol", *tol, "stop when a step lowers the loss by less than tol × loss");
  app.add_option("-o,--out", *out, "write every reach's loss, torques and hand trajectory to this JSON file (atomically)");
  app.add_flag("-q,--quiet", *quiet, "print only the summary, not a line per reach");
  return [=] {
    if (!(*radius > 0 && std::isfinite(*radius))) throw Error(fmt::format("ilqr: --radius must be a finite number > 0 (got {})", *radius));
    if (!(*alpha >= 0 && std::isfinite(*alpha))) throw Error(fmt::format("ilqr: --alpha must be >= 0 (got {})", *alpha));
    if (!(*tol > 0 && std::isfinite(*tol))) throw Error(fmt::format("ilqr: --tol must be > 0 (got {})", *tol));
    models::CenterOutOptions c;
    c.reaches = *reaches;
    c.steps = *steps;
    c.radius = *radius;
    c.alpha = *alpha;
    const models::IlqrOptions o{.max_iters = *max_iters, .tol = *tol};
    models::ReachBatch batch;
    try {
      batch = models::center_out_reaches(c);
    } catch (const Error& e) {  // a target out of the arm's reach
      throw Error(fmt::format("ilqr: --radius {}: {}", c.radius, e.what()));
    }
    // The output file's temporary is made first, so an unwritable --out fails before any work.
    std::unique_ptr<AtomicFile> file = out->empty() ? nullptr : std::make_unique<AtomicFile>(*out);
    const double cpu0 = process_cpu_seconds();
    const auto wall0 = std::chrono::steady_clock::now();
    const std::vector<models::IlqrResult> rs = models::ilqr_reaches(c.plant, batch, c.steps, c.alpha, o);
    const double cpu = process_cpu_seconds() - cpu0;
    const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - wall0).count();

    const auto n = static_cast<double>(rs.size());
    double mean = 0, mean_error = 0, worst = -1, mean_iters = 0;
    size_t worst_k = 0, converged = 0;
    int most = 0;
    nlohmann::json jr = nlohmann::json::array();
    if (!*quiet)
      fmt::print("{:>5} {:>7} {:>14} {:>14} {:>14} {:>5} {:>9}\n", "reach", "angle", "loss", "final_error", "energy",
                 "iters", "converged");
    for (size_t k = 0; k < rs.size(); ++k) {
      const models::IlqrResult& r = rs[k];
      const double angle = 360.0 * static_cast<double>(k) / n;
      if (!*quiet)
        fmt::print("{:>5} {:>7.2f} {:>14.8e} {:>14.8e} {:>14.8e} {:>5} {:>9}\n", k, angle, r.loss, r.final_error,
                   r.loss - r.final_error, r.iterations, r.converged ? "yes" : "NO");
      mean += r.loss / n;
      mean_error += r.final_error / n;
      mean_iters += r.iterations / n;
      most = std::max(most, r.iterations);
      converged += r.converged;
      if (r.loss > worst) worst = r.loss, worst_k = k;
      if (!out->empty()) {
        nlohmann::json torques = nlohmann::json::array(), hand = nlohmann::json::array();
        for (size_t t = 0; t + 1 < r.torques.size(); t += 2) torques.push_back({r.torques[t], r.torques[t + 1]});
        for (const auto& h : hand_path(r.states, c.plant.arm)) hand.push_back({h[0], h[1]});
        jr.push_back({{"reach", k},
                      {"angle_degrees", angle},
                      {"start", std::vector<double>(batch.starts.begin() + 4 * k, batch.starts.begin() + 4 * k + 4)},
                      {"target", std::vector<double>(batch.targets.begin() + 4 * k, batch.targets.begin() + 4 * k + 4)},
                      {"loss", r.loss},
                      {"final_error", r.final_error},
                      {"energy", r.loss - r.final_error},
                      {"iterations", r.iterations},
                      {"converged", r.converged},
                      {"final_state", std::vector<double>(r.states.end() - 4, r.states.end())},
                      {"torques", torques},
                      {"hand", hand}});
      }
    }
    fmt::print("ilqr: {} reaches of {} steps, radius {} m, alpha {}: mean loss {:.8e} (final error {:.8e}), worst "
               "{:.8e} (reach {}); iterations mean {:.2f}, max {}; {}/{} converged; {:.3f} CPU s ({:.3f} s wall)\n",
               rs.size(), c.steps, c.radius, c.alpha, mean, mean_error, worst, worst_k, mean_iters, most, converged,
               rs.size(), cpu, wall);
    if (!out->empty()) {
      const nlohmann::json j = {
          {"task", "center-out"},
          {"method", "ilqr"},
          {"options",
           {{"reaches", c.reaches}, {"steps", c.steps}, {"radius", c.radius}, {"alpha", c.alpha}, {"dt", c.plant.dt},
            {"max_iters", o.max_iters}, {"tol", o.tol}, {"mu0", o.mu0}, {"line_search_steps", o.line_search_steps}}},
          {"mean_loss", mean},
          {"mean_final_error", mean_error},
          {"worst_loss", worst},
          {"worst_reach", worst_k},
          {"mean_iterations", mean_iters},
          {"max_iterations", most},
          {"converged", converged},
          {"cpu_seconds", cpu},
          {"wall_seconds", wall},
          {"reaches", jr}};
      file->write(j.dump(1) + "\n");
      file->commit();
      fmt::print("wrote {}\n", *out);
    }
    if (converged != rs.size()) {
      fmt::print(stderr, "ilqr: {} of {} reaches did not converge (max-iters or the regulariser's limit reached)\n",
                 rs.size() - converged, rs.size());
      return 1;
    }
    return 0;
  };
}

}  // namespace tg::cli
