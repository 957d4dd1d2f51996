// tests/examples/gpt/test_sampling.cpp — examples/gpt/sampling.cpp: temperature, top-k, top-p,
// the seeded draw and generation with the cache.
#include <catch2/catch.hpp>

#include <cmath>

#include "gpt/sampling.h"
#include "tensor/threads.h"

using namespace atencion;
using namespace atencion::examples;
using namespace atencion::examples::gpt;

// The lesson's worked distribution (docs/15-gpt.md#sampling): five tokens.
const std::vector<double> kWorked = {0.05, 0.40, 0.10, 0.25, 0.20};

TEST_CASE("sampling: temperature divides the logits before the softmax", "[sampling]") {
  const std::vector<double> logits = {1.0, 2.0, 3.0};
  const auto plain = softmax_with_temperature(logits, 1.0);
  CHECK(plain[2] == Approx(std::exp(3.0) / (std::exp(1.0) + std::exp(2.0) + std::exp(3.0))));
  const auto sharp = softmax_with_temperature(logits, 0.5);  // = softmax(2, 4, 6)
  CHECK(sharp[2] == Approx(std::exp(6.0) / (std::exp(2.0) + std::exp(4.0) + std::exp(6.0))));
  SamplingOptions greedy;
  greedy.temperature = 0;
  CHECK(next_token_distribution({0.5, 3.0, 3.0, -1.0}, greedy) ==
        std::vector<double>{0, 1, 0, 0});  // the first largest
}

TEST_CASE("sampling: top-k keeps the k most likely", "[sampling]") {
  CHECK(top_k_filter(kWorked, 2) == std::vector<double>{0, 0.40, 0, 0.25, 0});
  CHECK(top_k_filter(kWorked, 0) == kWorked);
  CHECK(top_k_filter(kWorked, 9) == kWorked);
}

TEST_CASE("sampling: top-p keeps the smallest most-likely set reaching p", "[sampling]") {
  // sorted: 0.40 (id 1), 0.25 (id 3), 0.20 (id 4), 0.10, 0.05
  CHECK(top_p_filter(kWorked, 0.5) == std::vector<double>{0, 0.40, 0, 0.25, 0});   // 0.65
  CHECK(top_p_filter(kWorked, 0.65) == std::vector<double>{0, 0.40, 0, 0.25, 0});
  CHECK(top_p_filter(kWorked, 0.7) == std::vector<double>{0, 0.40, 0, 0.25, 0.20});
  CHECK(top_p_filter(kWorked, 0.01) == std::vector<double>{0, 0.40, 0, 0, 0});     // at least one
  CHECK(top_p_filter(kWorked, 1.0) == kWorked);
  SamplingOptions options;
  options.top_p = 0.5;
  const auto renormalised = next_token_distribution(
      {std::log(0.05), std::log(0.40), std::log(0.10), std::log(0.25), std::log(0.20)}, options);
  CHECK(renormalised[1] == Approx(0.40 / 0.65));
  CHECK(renormalised[3] == Approx(0.25 / 0.65));
  CHECK(renormalised[4] == 0);
}

TEST_CASE("sampling: draws follow the distribution and repeat for a seed", "[sampling]") {
  SplitMix64 first(7), second(7);
  std::vector<int64_t> counts(5, 0);
  for (int i = 0; i < 20000; ++i) {
    const int64_t a = draw(kWorked, first);
    CHECK(a == draw(kWorked, second));
    ++counts[static_cast<size_t>(a)];
  }
  for (size_t id = 0; id < 5; ++id) CHECK(counts[id] / 20000.0 == Approx(kWorked[id]).margin(0.015));
  CHECK(draw({0, 0, 1, 0}, first) == 2);
}

TEST_CASE("sampling: generate gives the same tokens for a seed, at 1 and 2 threads", "[sampling]") {
  GPTConfig config;
  config.vocab = 40;
  config.context = 16;
  config.d_model = 16;
  config.heads = 2;
  config.layers = 2;
  Generator generator(3);
  GPT model(config, generator);
  SamplingOptions options;
  options.max_new_tokens = 40;  // past the context: the cache is refilled on the way
  options.seed = 11;
  options.top_k = 10;
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
  options.seed = 12;
  CHECK(generate(model, {1, 2, 3}, options) != one);
  CHECK_THROWS_WITH(generate(model, std::vector<int64_t>(17, 1), options),
                    Catch::Contains("the prompt is 17 tokens, longer than the model's context of 16"));
}
