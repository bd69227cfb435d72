#include "tasks/ctc_decode.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>

#include "core/error.h"

namespace tg::tasks {

namespace {
constexpr double kNegInf = -std::numeric_limits<double>::infinity();

double log_add(double a, double b) {
  if (a == kNegInf) return b;
  if (b == kNegInf) return a;
  const double m = std::max(a, b);
  return m + std::log1p(std::exp(-std::abs(a - b)));
}

void check(const std::vector<Tensor>& logits, const std::vector<int64_t>& lengths, int32_t blank) {
  if (logits.empty()) throw Error("ctc decode: no steps");
  const int64_t T = static_cast<int64_t>(logits.size()), B = logits[0].shape()[0], C = logits[0].shape()[1];
  if (static_cast<int64_t>(lengths.size()) != B)
    throw ShapeError(fmt::format("ctc decode: {} lengths for a batch of {}", lengths.size(), B));
  for (int64_t len : lengths)
    if (len < 0 || len > T) throw Error(fmt::format("ctc decode: length {} outside [0, {}]", len, T));
  if (blank < 0 || blank >= C) throw Error(fmt::format("ctc decode: blank {} outside [0, {})", blank, C));
}

// log softmax of row b of step t's logits
std::vector<double> log_probs(const Tensor& z, int64_t b) {
  const int64_t C = z.shape()[1];
  std::vector<double> v(static_cast<size_t>(C));
  double m = kNegInf;
  for (int64_t c = 0; c < C; ++c) m = std::max(m, v[static_cast<size_t>(c)] = z.at(b * C + c));
  double sum = 0;
  for (double x : v) sum += std::exp(x - m);
  const double lse = m + std::log(sum);
  for (double& x : v) x -= lse;
  return v;
}
}  // namespace

std::vector<std::vector<int32_t>> ctc_greedy_decode(const std::vector<Tensor>& logits,
                                                    const std::vector<int64_t>& lengths, int32_t blank) {
  check(logits, lengths, blank);
  const int64_t B = logits[0].shape()[0], C = logits[0].shape()[1];
  std::vector<std::vector<int32_t>> out(static_cast<size_t>(B));
  for (int64_t b = 0; b < B; ++b) {
    int32_t previous = blank;
    for (int64_t t = 0; t < lengths[static_cast<size_t>(b)]; ++t) {
      const Tensor& z = logits[static_cast<size_t>(t)];
      int32_t best = 0;
      for (int32_t c = 1; c < C; ++c)
        if (z.at(b * C + c) > z.at(b * C + best)) best = c;
      if (best != blank && best != previous) out[static_cast<size_t>(b)].push_back(best);
      previous = best;
    }
  }
  return out;
}

std::vector<std::vector<int32_t>> ctc_prefix_beam_decode(const std::vector<Tensor>& logits,
                                                         const std::vector<int64_t>& lengths, int32_t blank,
                                                         int beam) {
  check(logits, lengths, blank);
  if (beam < 1) throw Error(fmt::format("ctc decode: beam {} must be at least 1", beam));
  const int64_t B = logits[0].shape()[0], C = logits[0].shape()[1];
  struct Score {
    double blank = kNegInf, label = kNegInf;  // log P of the paths emitting the prefix, ending in a blank / a label
    double total() const { return log_add(blank, label); }
  };
  std::vector<std::vector<int32_t>> out;
  for (int64_t b = 0; b < B; ++b) {
    std::map<std::vector<int32_t>, Score> beams{{{}, Score{0.0, kNegInf}}};
    for (int64_t t = 0; t < lengths[static_cast<size_t>(b)]; ++t) {
      const std::vector<double> lp = log_probs(logits[static_cast<size_t>(t)], b);
      std::map<std::vector<int32_t>, Score> next;
      for (const auto& [prefix, s] : beams) {
        Score& same = next[prefix];  // a blank, or the prefix's last label repeated: the prefix stays
        same.blank = log_add(same.blank, s.total() + lp[static_cast<size_t>(blank)]);
        if (!prefix.empty()) same.label = log_add(same.label, s.label + lp[static_cast<size_t>(prefix.back())]);
        for (int32_t c = 0; c < C; ++c) {
          if (c == blank) continue;
          std::vector<int32_t> longer = prefix;
          longer.push_back(c);
          // a repeated label extends the prefix only across a blank
          const double from = !prefix.empty() && prefix.back() == c ? s.blank : s.total();
          Score& e = next[longer];
          e.label = log_add(e.label, from + lp[static_cast<size_t>(c)]);
        }
      }
      std::vector<std::pair<double, std::vector<int32_t>>> ranked;
      for (const auto& [prefix, s] : next) ranked.emplace_back(s.total(), prefix);
      const size_t keep = std::min(ranked.size(), static_cast<size_t>(beam));
      std::partial_sort(ranked.begin(), ranked.begin() + static_cast<std::ptrdiff_t>(keep), ranked.end(),
                        [](const auto& x, const auto& y) { return x.first > y.first || (x.first == y.first && x.second < y.second); });
      beams.clear();
      for (size_t i = 0; i < keep; ++i) beams[ranked[i].second] = next[ranked[i].second];
    }
    const auto best = std::max_element(beams.begin(), beams.end(), [](const auto& x, const auto& y) {
      return x.second.total() < y.second.total();
    });
    out.push_back(best->first);
  }
  return out;
}

}  // namespace tg::tasks
