// Edit distance (Levenshtein: substitutions, insertions and deletions, each costing 1) and the error
// rate the speech literature reports with it: the phoneme error rate, Σ distance / Σ reference length.
#pragma once
#include <cstdint>
#include <vector>

namespace tg::tasks {

int64_t edit_distance(const std::vector<int32_t>& reference, const std::vector<int32_t>& hypothesis);

// Σ_i edit_distance(ref_i, hyp_i) / Σ_i |ref_i| (a tg::Error when the counts differ or every reference is
// empty).
double label_error_rate(const std::vector<std::vector<int32_t>>& references,
                        const std::vector<std::vector<int32_t>>& hypotheses);

}  // namespace tg::tasks
