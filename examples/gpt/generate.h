// examples/gpt/generate.h — the GPT's NextTokenScorer (examples/base/decoding/next_token_scorer.h),
// and text generated from a prompt with it: sampled, or by beam search.
// Lesson: docs/15-gpt.md#sampling
//
// Generation feeds the prompt once, then each new token alone (query length 1), its keys and
// values appended to each layer's cache: the cost of a token is one position's, not the prefix's.
// When the cache is full (the model's context), it is refilled from the last half of the text
// and generation goes on.
#pragma once

#include <cstdint>
#include <functional>
#include <vector>

#include "base/decoding/next_token_scorer.h"
#include "base/decoding/sampling.h"
#include "gpt/gpt.h"

namespace atencion::examples::gpt {

class GptScorer : public decoding::NextTokenScorer {
 public:
  // Room for up to `rows` prefixes at once (beam search's width; 1 to sample one text). The
  // model must be in eval mode, under NoGradGuard (nn::EvalScope), while it is used.
  GptScorer(GPT& model, int64_t rows);
  // Feeds what the cache has not seen of each prefix (all of it the first time), or, when that
  // would pass the context, the last half of the context's worth of each prefix to a fresh cache.
  Tensor logits(const std::vector<std::vector<int64_t>>& prefixes) override;
  void keep_rows(const std::vector<int64_t>& parents) override;

 private:
  GPT& model_;
  int64_t max_rows_;
  std::vector<nn::KeyValueCache> cache_;
  size_t fed_ = 0;  // the prefixes' length at the last call
};

struct GenerateOptions {
  int64_t max_new_tokens = 200;
  int64_t beam = 0;  // 0: sample; N ≥ 1: beam search of width N (1: greedy)
  decoding::SamplingOptions sampling;
};

// Generates up to options.max_new_tokens tokens after `prompt` (at least one id, at most the
// context), calling on_token with each as it is drawn (beam search: each token of its answer, at
// the end); returns them. Eval mode, no graph, the model's mode given back after.
std::vector<int64_t> generate(GPT& model, const std::vector<int64_t>& prompt,
                              const GenerateOptions& options,
                              const std::function<void(int64_t)>& on_token = {});

}  // namespace atencion::examples::gpt
