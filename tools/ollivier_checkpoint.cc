#include "tools/ollivier_checkpoint.h"

#include <fmt/format.h>

#include <cstring>

#include "core/error.h"
#include "core/npz.h"

namespace tg::cli {

namespace rm = riemannian;

namespace {
constexpr int64_t kRow = 8;  // pass, seconds, train LL, valid bits, regret, error, eta_w, eta_tau

void put_row(std::vector<double>& v, const rm::Scoring& s) {
  v.insert(v.end(), {static_cast<double>(s.pass), s.seconds, s.train_ll_bits, s.valid_bits, s.regret, s.error, s.eta_w,
                     s.eta_tau});
}
rm::Scoring get_row(const double* r) {
  rm::Scoring s;
  s.pass = static_cast<int64_t>(r[0]);
  s.seconds = r[1];
  s.train_ll_bits = r[2];
  s.valid_bits = r[3];
  s.regret = r[4];
  s.error = r[5];
  s.eta_w = r[6];
  s.eta_tau = r[7];
  return s;
}

std::vector<double> values(const ParamVec& v) {
  const double* p = v.flat().data<double>();
  return std::vector<double>(p, p + v.size());
}
ParamVec to_params(const std::string& path, const std::string& name, const std::vector<double>& v, const ParamSet& layout) {
  ParamVec p = layout.zeros_like();
  if (static_cast<int64_t>(v.size()) != p.size())
    throw Error(fmt::format("{}: '{}' has {} values, the model {} parameters", path, name, v.size(), p.size()));
  std::memcpy(p.flat().data<double>(), v.data(), v.size() * sizeof(double));
  return p;
}
}  // namespace

void save_ollivier_state(const std::string& path, const rm::TrainState& s, const std::string& config) {
  std::vector<double> history, best;
  for (const rm::Scoring& sc : s.result.history) put_row(history, sc);
  put_row(best, s.result.best);
  std::vector<NpzEntry> e;
  e.emplace_back("config", std::string_view(config));
  e.emplace_back("params", values(s.params));
  e.emplace_back("best_params", values(s.result.best_params));
  e.emplace_back("rms", s.rms.r.size() > 0 ? values(s.rms.r) : std::vector<double>{});
  e.emplace_back("rates_seconds", std::vector<double>{s.eta_w, s.eta_tau, s.seconds});
  e.emplace_back("counters", std::vector<int64_t>{s.passes, s.since_best, s.result.rejected_w, s.result.rejected_tau});
  e.emplace_back("history", history, std::vector<int64_t>{static_cast<int64_t>(s.result.history.size()), kRow});
  e.emplace_back("best", best);
  write_npz(path, e);
}

rm::TrainState load_ollivier_state(const std::string& path, const ParamSet& layout, const std::string& config) {
  NpzArchive a(path);
  if (a.bytes("config") != config)
    throw Error(fmt::format("{}: saved by another run configuration (saved: {}; this run: {})", path, a.bytes("config"),
                            config));
  rm::TrainState s;
  s.params = to_params(path, "params", a.doubles("params"), layout);
  s.result.best_params = to_params(path, "best_params", a.doubles("best_params"), layout);
  const std::vector<double> rms = a.doubles("rms");
  if (!rms.empty()) s.rms.r = to_params(path, "rms", rms, layout);
  const std::vector<double> r = a.doubles("rates_seconds");
  const std::vector<int64_t> c = a.int64s("counters");
  if (r.size() != 3 || c.size() != 4) throw Error(fmt::format("{}: damaged state (rates or counters)", path));
  s.eta_w = r[0];
  s.eta_tau = r[1];
  s.seconds = r[2];
  s.passes = c[0];
  s.since_best = c[1];
  s.result.rejected_w = c[2];
  s.result.rejected_tau = c[3];
  const std::vector<double> h = a.doubles("history"), b = a.doubles("best");
  if (h.size() % kRow != 0 || h.empty() || b.size() != kRow) throw Error(fmt::format("{}: damaged state (history)", path));
  for (size_t k = 0; k < h.size(); k += kRow) s.result.history.push_back(get_row(h.data() + k));
  s.result.last = s.result.history.back();
  s.result.best = get_row(b.data());
  return s;
}

}  // namespace tg::cli
