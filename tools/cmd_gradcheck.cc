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
#include "tools/cli_checks.h"
#include "tools/commands.h"

namespace tg::cli {

namespace {
void print_row(const std::string& name, const check::Report& r) {
  fmt::print("{:<30} {}  worst {:.1e}  (fd {:.1e} dot {:.1e} fd2 {:.1e} dot2 {:.1e} lin {:.1e}){}{}\n", name,
             r.ok ? "PASS" : "FAIL", r.worst, r.fd1, r.dot1, r.fd2, r.dot2, r.lin, r.ok ? "" : "  ", r.failure);
}

// The rows checked so far: each printed as it comes, the failures counted.
struct Tally {
  int rows = 0, failed = 0;
  void add(const std::string& name, const check::Report& r) {
    ++rows;
    failed += !r.ok;
    print_row(name, r);
  }
  void add_gauss_newton(const std::string& name, const check::Report& gn) {
    ++rows;
    failed += !gn.ok;
    fmt::print("{:<30} {}  worst {:.1e}  (G v against Jᵀ H J v: finite differences, H by hand){}{}\n",
               name + " gauss-newton", gn.ok ? "PASS" : "FAIL", gn.worst, gn.ok ? "" : "  ", gn.failure);
  }
};

// check(spec, options at `order`) for every spec of a family that `selected` keeps.
template <class Spec, class Selected, class Check>
void check_family(const std::vector<Spec>& specs, Selected selected, int order, Check check) {
  for (const Spec& spec : specs) {
    if (!selected(spec)) continue;
    check::Options opt;
    opt.order = order;
    check(spec, opt);
  }
}

int check_models(const std::string& only, int order) {
  Tally t;
  auto named = [&](std::initializer_list<std::string> names) {
    if (only.empty()) return true;
    for (const std::string& n : names)
      if (n == only) return true;
    return false;
  };
  check_family(check::model_specs(), [&](const check::ModelSpec& s) { return named({s.model, s.name}); }, order,
               [&](const check::ModelSpec& s, const check::Options& o) { t.add(s.name, check::check_model(s, o)); });
  // the feedforward networks: the same check of the loss, and Gauss-Newton against Jᵀ H J
  check_family(check::network_specs(), [&](const check::NetworkSpec& s) { return named({s.network, s.name}); }, order,
               [&](const check::NetworkSpec& s, const check::Options& o) {
                 t.add(s.name, check::check_network(s, o));
                 t.add_gauss_newton(s.name, check::check_network_gauss_newton(s));
               });
  // the arm controller in closed loop with the plant (issue 19)
  check_family(check::control_specs(), [&](const check::ControlSpec& s) { return named({"controller", s.name}); },
               order, [&](const check::ControlSpec& s, const check::Options& o) { t.add(s.name, check::check_control(s, o)); });
  // the RBM's sampling-free parts (issue 20: free energies, conditionals, exact log-likelihood)
  check_family(check::rbm_specs(), [&](const check::RbmSpec& s) { return named({"rbm", s.name}); }, order,
               [&](const check::RbmSpec& s, const check::Options& o) { t.add(s.name, check::check_rbm(s, o)); });
  check_family(check::temporal_rbm_specs(),
               [&](const check::TemporalRbmSpec& s) { return named({"rbm", s.recurrent ? "rtrbm" : "trbm", s.name}); },
               order, [&](const check::TemporalRbmSpec& s, const check::Options& o) {
                 t.add(s.name + (s.recurrent && !s.thesis_bptt ? "" : " (dot tests)"), check::check_temporal_rbm(s, o));
               });
  // the gated autoencoders and pyramids (issue 22): their losses, and Gauss-Newton against Jᵀ H J
  check_family(check::gated_specs(), [&](const check::GatedSpec& s) { return named({s.kind, s.name}); }, order,
               [&](const check::GatedSpec& s, const check::Options& o) {
                 t.add(s.name, check::check_gated(s, o));
                 t.add_gauss_newton(s.name, check::check_gated_gauss_newton(s));
               });
  if (t.rows == 0) {
    fmt::print(stderr, "tapegrad gradcheck: no model spec named '{}'\n", only);
    return 2;
  }
  fmt::print("{} model and network rows checked in float64 at order {}: {} passed, {} failed\n", t.rows, order,
             t.rows - t.failed, t.failed);
  return t.failed ? 1 : 0;
}
}  // namespace

Run add_gradcheck(CLI::App& app) {
  auto only = std::make_shared<std::string>();
  auto model = std::make_shared<std::string>();
  auto models = std::make_shared<bool>(false);
  auto order = std::make_shared<int>(2);
  auto* op = app.add_option("--op", *only, "check only this op")->check(non_empty_name());
  auto* all_models = app.add_flag("--models", *models, "check every model in the zoo instead of the ops");
  auto* one_model = app.add_option("--model", *model, "check only this model (or spec row) instead of the ops")
                        ->check(non_empty_name());
  op->excludes(all_models)->excludes(one_model);  // the ops or the models: never one silently ignored
  app.add_option("--order", *order, "derivative order to check (1 or 2)")->check(integer_in(1, 2));
  return [only, model, models, order] {
    if (*models || !model->empty()) return check_models(*model, *order);
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
