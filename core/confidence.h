// 95% confidence intervals for a run's error measure, so that a success is a statement about the
// model and not about one lucky draw of test sequences.
#pragma once
#include <cstdint>
#include <vector>

namespace tg {

struct Interval {
  double low, high;  // NaN when the data cannot give one
};

// A proportion (the fraction of wrong sequences) measured on n cases: Wilson's score interval, which
// stays inside [0, 1] and is sound for rates near 0, where the normal approximation is not.
Interval wilson_interval(double rate, int64_t n);

// Any other mean (bits per character, squared error): the normal interval of the weighted mean of
// independent chunks' means (batch means); NaN with fewer than two chunks.
Interval batch_means_interval(const std::vector<double>& chunk_means, const std::vector<double>& chunk_weights);

}  // namespace tg
