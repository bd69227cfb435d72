// tapegrad gradcheck: one line per op (name, PASS/FAIL, worst relative error); exit 0 only if all pass.
// With --models: one line per model spec row instead (the model's loss as a function of all its
// parameters, float64, tiny sizes), and the arm controller's closed-loop rollouts.
#include <fmt/format.h>

#include <string>

#include "gradcheck/control_specs.h"
#include "gradcheck/gated_specs.h"
#include "gradcheck/rbm_specs.h"
#include "gradcheck/model_specs.h"
#include "gradcheck/network_specs.h"
#include "gradcheck/op_specs.h"
#include "tools/commands.h"

namespace tg::cli {

namespace {
void print_row(const std::string& name, const check::Report& r) {
  fmt::print("{:<30} {}  worst {:.1e}  (fd {:.1e} dot {:.1e} fd2 {:.1e} dot2 {:.1e} lin {:.1e}){}{}\n", name,
             r.ok ? "PASS" : "FAIL", r.worst, r.fd1, r.dot1, r.fd2, r.dot2, r.lin, r.ok ? "" : "  ", r.failure);
}

int check_models(const std::string& only, int order) {
  int failed = 0, n = 0;
  for (const check::ModelSpec& spec : check::model_specs()) {
    if (!only.empty() && spec.model != only && spec.name != only) continue;
    check::Options opt;
    opt.order = order;
    check::Report r = check::check_model(spec, opt);
    ++n;
    failed += !r.ok;
    print_row(spec.name, r);
  }
  // the feedforward networks: the same check of the loss, and Gauss-Newton against Jᵀ H J
  for (const check::NetworkSpec& spec : check::network_specs()) {
    if (!only.empty() && spec.network != only && spec.name != only) continue;
    check::Options opt;
    opt.order = order;
    const check::Report r = check::check_network(spec, opt), gn = check::check_network_gauss_newton(spec);
    n += 2;
    failed += !r.ok + !gn.ok;
    print_row(spec.name, r);
    fmt::print("{:<30} {}  worst {:.1e}  (G v against Jᵀ H J v: finite differences, H by hand){}{}\n",
               spec.name + " gauss-newton", gn.ok ? "PASS" : "FAIL", gn.worst, gn.ok ? "" : "  ", gn.failure);
  }
  // the arm controller in closed loop with the plant (issue 19)
  for (const check::ControlSpec& spec : check::control_specs()) {
    if (!only.empty() && only != "controller" && spec.name != only) continue;
    check::Options opt;
    opt.order = order;
    const check::Report r = check::check_control(spec, opt);
    ++n;
    failed += !r.ok;
    print_row(spec.name, r);
  }
  // the RBM's sampling-free parts (issue 20: free energies, conditionals, exact log-likelihood)
  for (const check::RbmSpec& spec : check::rbm_specs()) {
    if (!only.empty() && only != "rbm" && spec.name != only) continue;
    check::Options opt;
    opt.order = order;
    const check::Report r = check::check_rbm(spec, opt);
    ++n;
    failed += !r.ok;
    print_row(spec.name, r);
  }
  for (const check::TemporalRbmSpec& spec : check::temporal_rbm_specs()) {
    const std::string family = spec.recurrent ? "rtrbm" : "trbm";
    if (!only.empty() && only != "rbm" && only != family && spec.name != only) continue;
    check::Options opt;
    opt.order = order;
    const check::Report r = check::check_temporal_rbm(spec, opt);
    ++n;
    failed += !r.ok;
    print_row(spec.name + (spec.recurrent && !spec.thesis_bptt ? "" : " (dot tests)"), r);
  }
  // the gated autoencoders and pyramids (issue 22): their losses, and Gauss-Newton against Jᵀ H J
  for (const check::GatedSpec& spec : check::gated_specs()) {
    if (!only.empty() && only != spec.kind && spec.name != only) continue;
    check::Options opt;
    opt.order = order;
    const check::Report r = check::check_gated(spec, opt), gn = check::check_gated_gauss_newton(spec);
    n += 2;
    failed += !r.ok + !gn.ok;
    print_row(spec.name, r);
    fmt::print("{:<30} {}  worst {:.1e}  (G v against Jᵀ H J v: finite differences, H by hand){}{}\n",
               spec.name + " gauss-newton", gn.ok ? "PASS" : "FAIL", gn.worst, gn.ok ? "" : "  ", gn.failure);
  }
  if (n == 0) {
    fmt::print(stderr, "tapegrad gradcheck: no model spec named '{}'\n", only);
    return 2;
  }
  fmt::print("{} model and network rows checked in float64 at order {}: {} passed, {} failed\n", n, order, n - failed,
             failed);
  return failed ? 1 : 0;
}
}  // namespace

Run add_gradcheck(CLI::App& app) {
  auto only = std::make_shared<std::string>();
  auto model = std::make_shared<std::string>();
  auto models = std::make_shared<bool>(false);
  auto order = std::make_shared<int>(2);
  app.add_option("--op", *only, "check only this op");
  app.add_flag("--models", *models, "check every model in the zoo instead of the ops");
  app.add_option("--model", *model, "with --models: check only this model (or spec row)");
  app.add_option("--order", *order, "derivative order to check (1 or 2)")->check(CLI::Range(1, 2));
  return [only, model, models, order] {
    if (*models) return check_models(*model, *order);
    int failed = 0, n = 0;
    for (const auto& spec : check::op_specs()) {
      if (!only->empty() && spec.op != *only) continue;
      check::Options opt;
      opt.order = *order;
      opt.finite_differences = spec.finite_differences;
      check::Report r = check::check_fn(spec.fn, check::random_inputs(spec.shapes, spec.lo, spec.hi, 42), opt);
      ++n;
      failed += !r.ok;
      print_row(spec.op, r);
    }
    if (n == 0) {
      fmt::print(stderr, "tapegrad gradcheck: no op named '{}'\n", *only);
      return 2;
    }
    fmt::print("{} ops checked in float64 at order {}: {} passed, {} failed\n", n, *order, n - failed, failed);
    return failed ? 1 : 0;
  };
}

}  // namespace tg::cli
