// examples/gpt/sampling.cpp — see sampling.h. Lesson: docs/15-gpt.md#sampling
#include "gpt/sampling.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>
#include <stdexcept>

#include "autograd/variable.h"

namespace atencion::examples::gpt {
namespace {

// Token ids from the most likely down (ties: the lower id first).
std::vector<size_t> by_probability(const std::vector<double>& probabilities) {
  std::vector<size_t> order(probabilities.size());
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(),
                   [&](size_t a, size_t b) { return probabilities[a] > probabilities[b]; });
  return order;
}

std::vector<double> last_row(const Tensor& logits) {  // logits [1, T, vocab]
  const Tensor last = logits.select(1, logits.size(1) - 1).select(0, 0).to(DType::Float64);
  return last.to_vector();
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
  const std::vector<size_t> order = by_probability(probabilities);
  for (int64_t i = 0; i < k; ++i) kept[order[static_cast<size_t>(i)]] = probabilities[order[static_cast<size_t>(i)]];
  return kept;
}

std::vector<double> top_p_filter(const std::vector<double>& probabilities, double p) {
  std::vector<double> kept(probabilities.size(), 0.0);
  double before = 0;  // the probability of the tokens kept so far
  for (const size_t id : by_probability(probabilities)) {
    if (before >= p) break;
    kept[id] = probabilities[id];
    before += probabilities[id];
  }
  return kept;
}

std::vector<double> next_token_distribution(const std::vector<double>& logits,
                                            const SamplingOptions& options) {
  if (logits.empty()) throw std::invalid_argument("sampling: no logits");
  if (options.temperature == 0) {  // greedy: all the mass on the first largest logit
    std::vector<double> one_hot(logits.size(), 0.0);
    one_hot[static_cast<size_t>(std::max_element(logits.begin(), logits.end()) - logits.begin())] = 1;
    return one_hot;
  }
  std::vector<double> distribution = softmax_with_temperature(logits, options.temperature);
  distribution = top_k_filter(distribution, options.top_k);
  if (options.top_p < 1) distribution = top_p_filter(distribution, options.top_p);
  const double total = std::accumulate(distribution.begin(), distribution.end(), 0.0);
  for (double& p : distribution) p /= total;
  return distribution;
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

std::vector<int64_t> generate(GPT& model, const std::vector<int64_t>& prompt,
                              const SamplingOptions& options,
                              const std::function<void(int64_t)>& on_token) {
  const int64_t context = model.config().context;
  if (prompt.empty()) throw std::invalid_argument("generate: an empty prompt");
  if (static_cast<int64_t>(prompt.size()) > context)
    throw std::invalid_argument("the prompt is " + std::to_string(prompt.size()) +
                                " tokens, longer than the model's context of " +
                                std::to_string(context));
  NoGradGuard no_grad;
  model.eval();
  SplitMix64 generator(options.seed);
  std::vector<int64_t> text = prompt, generated;
  std::vector<nn::KeyValueCache> cache = model.make_cache(1, context);
  auto feed = [&](const std::vector<int64_t>& ids) {
    const Tensor batch = Tensor::from_ids(ids, {1, static_cast<int64_t>(ids.size())});
    return last_row(model.forward(batch, cache).value());
  };
  std::vector<double> logits = feed(prompt);
  for (int64_t n = 0; n < options.max_new_tokens; ++n) {
    const int64_t token = draw(next_token_distribution(logits, options), generator);
    generated.push_back(token);
    text.push_back(token);
    if (on_token) on_token(token);
    if (n + 1 == options.max_new_tokens) break;
    if (cache[0].length() < context) {
      logits = feed({token});  // query length 1: the new token attends to the cached keys
    } else {                   // full: start again from the last half of the text
      cache = model.make_cache(1, context);
      const int64_t keep = std::max<int64_t>(1, context / 2);
      logits = feed(std::vector<int64_t>(text.end() - keep, text.end()));
    }
  }
  return generated;
}

}  // namespace atencion::examples::gpt
