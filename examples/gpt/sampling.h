// examples/gpt/sampling.h — choosing the next token from the model's logits, and generating text
// one token at a time with the key/value cache.
// Lesson: docs/15-gpt.md#sampling
//
// From the logits z of the last position, in this order (as Hugging Face's generate):
//   temperature τ   p = softmax(z / τ); τ < 1 sharpens, τ > 1 flattens, τ = 0 is greedy (argmax)
//   top-k           keep the k most likely tokens (0: all)
//   top-p (nucleus) keep the most likely tokens until their probabilities reach p (1: all)
//   renormalise, and draw one token from what is left with a seeded generator
// Generation feeds the prompt once, then each drawn token alone (query length 1), its keys and
// values appended to each layer's cache: the cost of a token is one position's, not the prefix's.
#pragma once

#include <cstdint>
#include <functional>
#include <vector>

#include "base/data/shuffle.h"
#include "gpt/gpt.h"

namespace atencion::examples::gpt {

struct SamplingOptions {
  int64_t max_new_tokens = 200;
  double temperature = 1.0;  // 0: greedy
  int64_t top_k = 0;         // 0: no top-k
  double top_p = 1.0;        // in (0, 1]; 1: no top-p
  uint64_t seed = 1;
};

// softmax(logits / temperature), float64. Temperature > 0.
std::vector<double> softmax_with_temperature(const std::vector<double>& logits, double temperature);
// The k largest probabilities kept (ties: the lower id first), the rest set to 0; k = 0 keeps all.
std::vector<double> top_k_filter(const std::vector<double>& probabilities, int64_t k);
// Nucleus: the most likely tokens (ties: the lower id first) kept while the probability of
// those kept before them is below p (so the first one always is); the rest set to 0.
std::vector<double> top_p_filter(const std::vector<double>& probabilities, double p);
// The distribution sampling draws from: the steps above, renormalised (one-hot at the argmax
// when temperature is 0).
std::vector<double> next_token_distribution(const std::vector<double>& logits,
                                            const SamplingOptions& options);
// Inverse-CDF draw from `distribution` with one uniform number of `generator`.
int64_t draw(const std::vector<double>& distribution, SplitMix64& generator);

// Generates up to options.max_new_tokens tokens after `prompt` (at least one id, at most the
// context), calling on_token with each as it is drawn; returns them. When the context is full,
// the cache is refilled from the last half of the text and generation goes on. Eval mode, no
// graph (it sets both).
std::vector<int64_t> generate(GPT& model, const std::vector<int64_t>& prompt,
                              const SamplingOptions& options,
                              const std::function<void(int64_t)>& on_token = {});

}  // namespace atencion::examples::gpt
