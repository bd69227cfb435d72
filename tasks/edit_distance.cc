#include "tasks/edit_distance.h"

#include <fmt/format.h>

#include <algorithm>
#include <numeric>

#include "core/error.h"

namespace tg::tasks {

int64_t edit_distance(const std::vector<int32_t>& reference, const std::vector<int32_t>& hypothesis) {
  // one row of the dynamic programme at a time: row[j] = distance(reference[0, i), hypothesis[0, j))
  std::vector<int64_t> row(hypothesis.size() + 1);
  std::iota(row.begin(), row.end(), int64_t{0});
  for (size_t i = 1; i <= reference.size(); ++i) {
    int64_t diagonal = row[0];
    row[0] = static_cast<int64_t>(i);
    for (size_t j = 1; j <= hypothesis.size(); ++j) {
      const int64_t up = row[j];
      row[j] = std::min({row[j] + 1, row[j - 1] + 1, diagonal + (reference[i - 1] == hypothesis[j - 1] ? 0 : 1)});
      diagonal = up;
    }
  }
  return row.back();
}

double label_error_rate(const std::vector<std::vector<int32_t>>& references,
                        const std::vector<std::vector<int32_t>>& hypotheses) {
  if (references.size() != hypotheses.size())
    throw Error(fmt::format("label error rate: {} references and {} hypotheses", references.size(), hypotheses.size()));
  int64_t edits = 0, length = 0;
  for (size_t i = 0; i < references.size(); ++i) {
    edits += edit_distance(references[i], hypotheses[i]);
    length += static_cast<int64_t>(references[i].size());
  }
  if (length == 0) throw Error("label error rate: every reference is empty");
  return static_cast<double>(edits) / static_cast<double>(length);
}

}  // namespace tg::tasks
