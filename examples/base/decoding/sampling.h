// examples/base/decoding/sampling.h — choosing the next token by chance: from the model's
// logits z, the distribution it is drawn from, step by step, and the seeded draw.
// Lesson: docs/15-gpt.md#sampling
//
// In this order, as Hugging Face's generate applies its logits warpers (temperature, top-k,
// top-p):
//   temperature τ   p = softmax(z / τ); τ < 1 sharpens, τ > 1 flattens, τ = 0 is greedy (argmax)
//   top-k           keep the k most likely tokens (0: all), renormalised
//   top-p (nucleus) on what top-k left: keep the most likely tokens while the probability of
//                   those kept before them is below p (so at least one), renormalised
//   draw            one token, from what is left, with a seeded generator
// Top-p reads top-k's renormalised distribution: with top-k 3 and top-p 0.7 on the lesson's
// five words, {mat 0.40, bed 0.25, chair 0.20} become {0.47, 0.29, 0.24} and top-p keeps
// {mat, bed} (0.47 + 0.29 ≥ 0.7), as Hugging Face does.
#pragma once

#include <cstdint>
#include <vector>

#include "base/data/shuffle.h"

namespace atencion::examples::decoding {

struct SamplingOptions {
  double temperature = 1.0;  // 0: greedy
  int64_t top_k = 0;         // 0: no top-k
  double top_p = 1.0;        // in (0, 1]; 1: no top-p
  uint64_t seed = 1;         // each row's generator starts from it (search.h)
};

// Each step's distribution over the vocabulary, float64: what a page shows, and what the
// sampler draws from (after_top_p).
struct SamplingSteps {
  std::vector<double> after_temperature;  // softmax(z / τ); one-hot at the argmax when τ = 0
  std::vector<double> after_top_k;        // renormalised (after_temperature when k cuts nothing)
  std::vector<double> after_top_p;        // renormalised: the distribution drawn from
  int64_t token = -1;                     // the one drawn (sample_next), or -1
};

// softmax(logits / temperature), float64. Temperature > 0.
std::vector<double> softmax_with_temperature(const std::vector<double>& logits, double temperature);
// The k largest probabilities kept (ties: the lower id first), the rest set to 0; k = 0 keeps all.
std::vector<double> top_k_filter(const std::vector<double>& probabilities, int64_t k);
// Nucleus: the most likely tokens (ties: the lower id first) kept while the probability of
// those kept before them is below p (so the first one always is); the rest set to 0. The same
// boundary as Hugging Face's TopPLogitsWarper, which removes a token when the probability of
// the tokens less likely than it, itself included, is at most 1 - p.
std::vector<double> top_p_filter(const std::vector<double>& probabilities, double p);

// The three steps above for one row of logits (-inf: a token that may not come out). Throws
// std::invalid_argument for no logits, a temperature below 0, top-k below 0 or top-p outside
// (0, 1].
SamplingSteps sampling_steps(const std::vector<double>& logits, const SamplingOptions& options);
// Inverse-CDF draw from `distribution` with one uniform number of `generator`.
int64_t draw(const std::vector<double>& distribution, SplitMix64& generator);
// sampling_steps, then draw from after_top_p: the sampler's one step (search.h), with every
// distribution it went through.
SamplingSteps sample_next(const std::vector<double>& logits, const SamplingOptions& options,
                          SplitMix64& generator);
// sample_next's token alone, without keeping the distributions: the sampler's step (search.h).
// Greedy (temperature 0) finds the first largest logit in one pass, where sample_next makes
// three one-hot distributions of the vocabulary's size (for GPT-2's 50,257 ids, half the time).
int64_t next_token(const std::vector<double>& logits, const SamplingOptions& options,
                   SplitMix64& generator);

}  // namespace atencion::examples::decoding
