// tests/examples/gpt/test_generate.cpp — examples/gpt/generate.cpp: the GPT's scorer with its
// cache (refilled when the context is full) under the shared searches: seeded sampling against a
// loop written out over the uncached forward, the same at 1 and 2 threads; beam search against
// the same search over an uncached scorer.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <memory>
#include <numeric>

#include "base/decoding/search.h"
#include "gpt/generate.h"
#include "tensor/threads.h"

using namespace atencion;
using namespace atencion::examples;
using namespace atencion::examples::gpt;

namespace {

std::unique_ptr<GPT> small_model(uint64_t seed) {
  GPTConfig config;
  config.vocab = 40;
  config.context = 16;
  config.d_model = 16;
  config.heads = 2;
  config.layers = 2;
  Generator generator(seed);
  auto model = std::make_unique<GPT>(config, generator);
  model->eval();
  return model;
}

// The last position's logits of one forward of `ids`, no cache, as doubles.
std::vector<double> last_logits(GPT& model, const std::vector<int64_t>& ids) {
  NoGradGuard no_grad;
  const int64_t t = static_cast<int64_t>(ids.size());
  return model.forward(Tensor::from_ids(ids, {1, t})).value().select(0, 0).select(0, t - 1)
      .to_vector();
}

// Sampling written out for the reference: softmax(z / τ); the k largest (lower id first on
// ties), renormalised; from the top, tokens while those before them sum below p, renormalised;
// the first id whose running sum passes u = (53 top bits of SplitMix64) / 2^53.
int64_t draw_by_hand(const std::vector<double>& z, double tau, int64_t k, double p,
                     SplitMix64& generator) {
  const double z_max = *std::max_element(z.begin(), z.end());
  std::vector<double> prob(z.size());
  double total = 0;
  for (size_t i = 0; i < z.size(); ++i) total += prob[i] = std::exp((z[i] - z_max) / tau);
  for (double& x : prob) x /= total;
  std::vector<size_t> order(z.size());
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(),
                   [&](size_t a, size_t b) { return prob[a] > prob[b]; });
  std::vector<double> kept(z.size(), 0.0);
  double kept_total = 0;
  for (size_t rank = 0; rank < static_cast<size_t>(k); ++rank) kept_total += prob[order[rank]];
  for (size_t rank = 0; rank < static_cast<size_t>(k); ++rank)
    kept[order[rank]] = prob[order[rank]] / kept_total;
  std::vector<double> nucleus(z.size(), 0.0);
  double before = 0;
  for (size_t rank = 0; rank < static_cast<size_t>(k) && before < p; ++rank) {
    nucleus[order[rank]] = kept[order[rank]];
    before += kept[order[rank]];
  }
  const double u = static_cast<double>(generator.next() >> 11) / 9007199254740992.0;
  double running = 0;
  for (size_t i = 0; i < z.size(); ++i) {
    running += nucleus[i] / before;
    if (nucleus[i] > 0 && u < running) return static_cast<int64_t>(i);
  }
  return -1;
}

// The next token's logits of each prefix by a whole forward, no cache: what the GPT's scorer is
// held to.
class UncachedScorer : public decoding::NextTokenScorer {
 public:
  explicit UncachedScorer(GPT& model) : model_(model) {}
  Tensor logits(const std::vector<std::vector<int64_t>>& prefixes) override {
    std::vector<double> values;
    for (const auto& prefix : prefixes) {
      const auto row = last_logits(model_, prefix);
      values.insert(values.end(), row.begin(), row.end());
    }
    return Tensor::from_vector(values,
                               {static_cast<int64_t>(prefixes.size()), model_.config().vocab});
  }
  void keep_rows(const std::vector<int64_t>&) override {}

 private:
  GPT& model_;
};

}  // namespace

TEST_CASE("generate: seeded sampling draws what a loop over the uncached forward draws",
          "[generate]") {
  auto owned = small_model(3);
  GPT& model = *owned;
  GenerateOptions options;
  options.max_new_tokens = 40;  // past the context of 16: the cache is refilled on the way
  options.sampling.temperature = 0.9;
  options.sampling.top_k = 10;
  options.sampling.top_p = 0.8;
  for (const uint64_t seed : {11, 12}) {
    options.sampling.seed = seed;
    const std::vector<int64_t> generated = generate(model, {1, 2, 3}, options);
    // Written out: the model sees the text since `window` (when a token would pass the context
    // of 16, the window restarts at the last 8 tokens, as the refilled cache does).
    SplitMix64 generator(seed);
    std::vector<int64_t> text = {1, 2, 3}, expected;
    size_t window = 0;
    while (expected.size() < 40) {
      if (text.size() - window > 16) window = text.size() - 8;
      const std::vector<int64_t> seen(text.begin() + static_cast<std::ptrdiff_t>(window),
                                      text.end());
      const int64_t token = draw_by_hand(last_logits(model, seen), 0.9, 10, 0.8, generator);
      expected.push_back(token);
      text.push_back(token);
    }
    INFO("seed " << seed);
    CHECK(generated == expected);
  }
}

TEST_CASE("generate: the same tokens for a seed, at 1 and 2 threads, streamed as drawn",
          "[generate]") {
  auto owned = small_model(3);
  GPT& model = *owned;
  GenerateOptions options;
  options.max_new_tokens = 40;
  options.sampling.seed = 11;
  options.sampling.top_k = 10;
  const int threads = num_threads();
  set_num_threads(1);
  std::vector<int64_t> streamed;
  const auto one = generate(model, {1, 2, 3}, options, [&](int64_t id) { streamed.push_back(id); });
  set_num_threads(2);
  const auto two = generate(model, {1, 2, 3}, options);
  set_num_threads(threads);
  CHECK(one.size() == 40);
  CHECK(one == two);
  CHECK(streamed == one);
  options.sampling.seed = 12;
  CHECK(generate(model, {1, 2, 3}, options) != one);
  CHECK_THROWS_WITH(generate(model, std::vector<int64_t>(17, 1), options),
                    Catch::Contains("the prompt is 17 tokens, longer than the model's context of 16"));
  model.train();  // the model's mode is given back
  generate(model, {1}, options);
  CHECK(model.is_training());
}

TEST_CASE("generate: beam search with the cache chooses as without it, width 1 is greedy",
          "[generate]") {
  auto owned = small_model(5);
  GPT& model = *owned;
  for (const int64_t beam : {1, 3}) {
    INFO("beam " << beam);
    GenerateOptions options;
    options.max_new_tokens = 10;  // within the context: no refill
    options.beam = beam;
    std::vector<int64_t> streamed;
    const auto cached =
        generate(model, {4, 5, 6}, options, [&](int64_t id) { streamed.push_back(id); });
    decoding::SearchOptions search;
    search.beam = beam;
    search.max_length = 10;
    UncachedScorer uncached(model);
    CHECK(cached == decoding::beam_search(uncached, {{4, 5, 6}}, search)[0]);
    CHECK(streamed == cached);
    if (beam == 1) {  // the argmax of each step, written out
      std::vector<int64_t> text = {4, 5, 6};
      for (int step = 0; step < 10; ++step) {
        const auto z = last_logits(model, text);
        text.push_back(std::max_element(z.begin(), z.end()) - z.begin());
      }
      CHECK(cached == std::vector<int64_t>(text.begin() + 3, text.end()));
    }
  }
}
