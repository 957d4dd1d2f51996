// examples/base/decoding/sampling.cpp — see sampling.h. Lesson: docs/15-gpt.md#sampling
#include "base/decoding/sampling.h"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <sstream>
#include <stdexcept>
#include <string>

namespace atencion::examples::decoding {
namespace {

// The `count` most likely token ids, the most likely first (ties: the lower id first): the
// start of the vocabulary sorted by probability, found without sorting the rest (a vocabulary
// of 50,257 sorted whole took 5 ms a token, half of what GPT-2's forward takes).
std::vector<size_t> likeliest(const std::vector<double>& probabilities, size_t count) {
  std::vector<size_t> order(probabilities.size());
  std::iota(order.begin(), order.end(), 0);
  count = std::min(count, order.size());
  const auto before = [&](size_t a, size_t b) {
    return probabilities[a] > probabilities[b] || (probabilities[a] == probabilities[b] && a < b);
  };
  if (count < order.size())
    std::nth_element(order.begin(), order.begin() + static_cast<std::ptrdiff_t>(count),
                     order.end(), before);
  order.resize(count);
  std::sort(order.begin(), order.end(), before);
  return order;
}

// The id of the first largest logit: where greedy puts all the mass.
size_t first_largest(const std::vector<double>& logits) {
  return static_cast<size_t>(std::max_element(logits.begin(), logits.end()) - logits.begin());
}

// p / Σ p
std::vector<double> renormalised(std::vector<double> probabilities) {
  const double total = std::accumulate(probabilities.begin(), probabilities.end(), 0.0);
  for (double& p : probabilities) p /= total;
  return probabilities;
}

std::string number(double x) {
  std::ostringstream out;
  out << x;
  return out.str();
}

void check(const std::vector<double>& logits, const SamplingOptions& options) {
  if (logits.empty()) throw std::invalid_argument("sampling: no logits");
  if (!(options.temperature >= 0))
    throw std::invalid_argument("sampling: temperature must be at least 0, not " +
                                number(options.temperature));
  if (options.top_k < 0)
    throw std::invalid_argument("sampling: top-k must be at least 0, not " +
                                std::to_string(options.top_k));
  if (!(options.top_p > 0 && options.top_p <= 1))
    throw std::invalid_argument("sampling: top-p must be in (0, 1], not " +
                                number(options.top_p));
}

}  // namespace

std::vector<double> softmax_with_temperature(const std::vector<double>& logits,
                                             double temperature) {
  // p_i = exp((z_i - max z) / τ) / Σ_j exp((z_j - max z) / τ)
  const double largest = *std::max_element(logits.begin(), logits.end());
  std::vector<double> probabilities(logits.size());
  double total = 0;
  for (size_t i = 0; i < logits.size(); ++i)
    total += probabilities[i] = std::exp((logits[i] - largest) / temperature);
  for (double& p : probabilities) p /= total;
  return probabilities;
}

std::vector<double> top_k_filter(const std::vector<double>& probabilities, int64_t k) {
  if (k <= 0 || k >= static_cast<int64_t>(probabilities.size())) return probabilities;
  std::vector<double> kept(probabilities.size(), 0.0);
  for (const size_t id : likeliest(probabilities, static_cast<size_t>(k)))
    kept[id] = probabilities[id];
  return kept;
}

std::vector<double> top_p_filter(const std::vector<double>& probabilities, double p) {
  // The nucleus is most often a few tokens: look among the 64 likeliest, and if they hold less
  // than p, among twice as many, and so on up to the whole vocabulary.
  for (size_t count = 64;; count *= 2) {
    const std::vector<size_t> order = likeliest(probabilities, count);
    double before = 0;  // the probability of the tokens kept so far
    size_t kept_count = 0;
    while (kept_count < order.size() && before < p) before += probabilities[order[kept_count++]];
    if (before < p && order.size() < probabilities.size()) continue;
    std::vector<double> kept(probabilities.size(), 0.0);
    for (size_t i = 0; i < kept_count; ++i) kept[order[i]] = probabilities[order[i]];
    return kept;
  }
}

SamplingSteps sampling_steps(const std::vector<double>& logits, const SamplingOptions& options) {
  check(logits, options);
  SamplingSteps steps;
  if (options.temperature == 0) {  // greedy: all the mass on the first largest logit
    std::vector<double> one_hot(logits.size(), 0.0);
    one_hot[first_largest(logits)] = 1;
    steps.after_temperature = steps.after_top_k = one_hot;
    steps.after_top_p = std::move(one_hot);
    return steps;
  }
  steps.after_temperature = softmax_with_temperature(logits, options.temperature);
  const bool k_cuts = options.top_k > 0 && options.top_k < static_cast<int64_t>(logits.size());
  steps.after_top_k = k_cuts ? renormalised(top_k_filter(steps.after_temperature, options.top_k))
                             : steps.after_temperature;
  if (options.top_p < 1)
    steps.after_top_p = renormalised(top_p_filter(steps.after_top_k, options.top_p));
  else  // top-k's, or the softmax's (its sum is 1 up to rounding) renormalised
    steps.after_top_p = k_cuts ? steps.after_top_k : renormalised(steps.after_top_k);
  return steps;
}

int64_t draw(const std::vector<double>& distribution, SplitMix64& generator) {
  // u uniform in [0, 1) from the top 53 bits; the first id whose cumulative probability passes u
  const double u = static_cast<double>(generator.next() >> 11) * 0x1.0p-53;
  double cumulative = 0;
  int64_t last_possible = 0;
  for (size_t i = 0; i < distribution.size(); ++i) {
    if (distribution[i] <= 0) continue;
    cumulative += distribution[i];
    last_possible = static_cast<int64_t>(i);
    if (u < cumulative) return last_possible;
  }
  return last_possible;  // u at the very top, past rounding in the sums
}

int64_t next_token(const std::vector<double>& logits, const SamplingOptions& options,
                   SplitMix64& generator) {
  if (options.temperature != 0) return sample_next(logits, options, generator).token;
  check(logits, options);
  generator.next();  // the number sample_next's draw from the one-hot takes, as it does
  return static_cast<int64_t>(first_largest(logits));
}

SamplingSteps sample_next(const std::vector<double>& logits, const SamplingOptions& options,
                          SplitMix64& generator) {
  SamplingSteps steps = sampling_steps(logits, options);
  steps.token = draw(steps.after_top_p, generator);
  return steps;
}

}  // namespace atencion::examples::decoding
