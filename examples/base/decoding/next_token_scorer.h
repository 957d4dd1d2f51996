// examples/base/decoding/next_token_scorer.h — the one thing greedy, beam search and sampling
// need of a model: the scores of the next token after each prefix of a batch, given a cache.
// Lessons: docs/12-translation.md#decoding, docs/15-gpt.md#sampling
//
// A model family implements it once and gets every search of this folder (search.h): the
// encoder-decoder Transformer in encoder_decoder.h (the translator, the copy task), the GPT in
// examples/gpt/generate.h. The searches call it as a loop:
//
//   scores = logits(prefixes)   [rows, vocab], p(· | prefix r) = softmax(scores[r])
//   choose one token per row (argmax, the beam's best, a draw), append it to its prefix
//   keep_rows(parents)          row i goes on from row parents[i] (beam search reorders its
//                               hypotheses, finished rows leave); not called when all rows go on
//
// so between two calls of logits() every prefix grows by exactly one token, and a scorer that
// keeps a key/value cache feeds only what it has not seen: the whole start (the translator's
// bos, the GPT's prompt) at the first call, then each row's newest token.
#pragma once

#include <cstdint>
#include <vector>

#include "tensor/tensor.h"

namespace atencion::examples::decoding {

class NextTokenScorer {
 public:
  virtual ~NextTokenScorer() = default;
  // The logits of the token after each prefix, [prefixes.size(), vocab]. All prefixes have the
  // same length.
  virtual Tensor logits(const std::vector<std::vector<int64_t>>& prefixes) = 0;
  // Row i of the next call continues row parents[i] of the last one (repeats allowed).
  virtual void keep_rows(const std::vector<int64_t>& parents) = 0;
};

}  // namespace atencion::examples::decoding
