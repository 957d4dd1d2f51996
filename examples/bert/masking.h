// examples/bert/masking.h — BERT's masking rule: which pieces the model must guess, and what it
// sees in their place. Lesson: docs/16-bert.md#the-masked-lm-objective
//
// Of the pieces that are not special ([CLS], [SEP], [PAD]), each is chosen with probability
// 15% (at least one per sentence, so that every sentence teaches something). A chosen piece is
//   80%: replaced by [MASK]        the model learns to fill the gap,
//   10%: replaced by a random piece  it cannot trust that a visible piece is right,
//   10%: left as it is             it must keep a good representation of every piece,
// and its label is the original piece; every other position's label is nn::kIgnoreIndex, -100
// (ignored by the loss, as torch's cross_entropy ignore_index). The draws come from a generator
// seeded by the caller, so a batch's masking is a pure function of its seed.
#pragma once

#include <cstdint>
#include <vector>

#include "bert/pieces.h"

namespace atencion::examples::bert {

struct MaskingOptions {
  double probability = 0.15;
  double mask_share = 0.8;    // of the chosen: [MASK]
  double random_share = 0.1;  // of the chosen: a random piece; the rest stay unchanged
};

struct MaskedSentence {
  std::vector<int64_t> input_ids;  // what the model reads
  std::vector<int64_t> labels;     // the original piece where chosen, else -100
};

// `ids`: one sentence with [CLS] and [SEP]. Random pieces are drawn among the non-special ones.
MaskedSentence mask_sentence(const std::vector<int64_t>& ids, const Pieces& pieces, uint64_t seed,
                             const MaskingOptions& options = {});

}  // namespace atencion::examples::bert
