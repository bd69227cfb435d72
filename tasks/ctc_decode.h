// Reading a label sequence out of CTC outputs (models/ctc.h; here beside the scoring they serve): best-path (greedy) decoding and a small
// prefix beam search (Graves 2012, §7.3; Hannun et al. 2014's formulation without a language model).
// These are searches over the outputs, not graphs: they take logits as tensors.
#pragma once
#include <cstdint>
#include <vector>

#include "core/tensor.h"

namespace tg::tasks {

// Per sequence: the argmax class at each step t < lengths[b], repeats merged, blanks dropped.
// logits: T tensors [B, C].
std::vector<std::vector<int32_t>> ctc_greedy_decode(const std::vector<Tensor>& logits,
                                                    const std::vector<int64_t>& lengths, int32_t blank = 0);

// Per sequence: the most probable labelling among the `beam` prefixes kept at each step, each prefix
// scored by the total probability of the paths that emit it so far (ending in a blank or not).
std::vector<std::vector<int32_t>> ctc_prefix_beam_decode(const std::vector<Tensor>& logits,
                                                         const std::vector<int64_t>& lengths, int32_t blank = 0,
                                                         int beam = 8);

}  // namespace tg::tasks
