// tests/examples/base/decoding/test_sampling.cpp — examples/base/decoding/sampling.cpp:
// temperature, top-k, top-p on what top-k left (as Hugging Face), the steps a page shows, and the
// seeded draw.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>
#include <vector>

#include "base/decoding/sampling.h"

using namespace atencion::examples;
using namespace atencion::examples::decoding;
using Catch::Matchers::Contains;

namespace {

// The lesson's worked distribution (docs/15-gpt.md#sampling): sofa, mat, floor, bed, chair.
const std::vector<double> kWorked = {0.05, 0.40, 0.10, 0.25, 0.20};

std::vector<double> logs(const std::vector<double>& p) {
  std::vector<double> out;
  for (double x : p) out.push_back(std::log(x));
  return out;
}

std::vector<double> divided_by_sum(std::vector<double> p) {
  const double total = std::accumulate(p.begin(), p.end(), 0.0);
  for (double& x : p) x /= total;
  return p;
}

std::vector<size_t> kept(const std::vector<double>& p) {
  std::vector<size_t> ids;
  for (size_t i = 0; i < p.size(); ++i)
    if (p[i] > 0) ids.push_back(i);
  return ids;
}

}  // namespace

TEST_CASE("sampling: temperature divides the logits before the softmax", "[sampling]") {
  const std::vector<double> logits = {1.0, 2.0, 3.0};
  const auto plain = softmax_with_temperature(logits, 1.0);
  CHECK(plain[2] == Approx(std::exp(3.0) / (std::exp(1.0) + std::exp(2.0) + std::exp(3.0))));
  const auto sharp = softmax_with_temperature(logits, 0.5);  // = softmax(2, 4, 6)
  CHECK(sharp[2] == Approx(std::exp(6.0) / (std::exp(2.0) + std::exp(4.0) + std::exp(6.0))));
  SamplingOptions greedy;
  greedy.temperature = 0;
  const SamplingSteps steps = sampling_steps({0.5, 3.0, 3.0, -1.0}, greedy);
  CHECK(steps.after_temperature == std::vector<double>{0, 1, 0, 0});  // the first largest
  CHECK(steps.after_top_p == std::vector<double>{0, 1, 0, 0});
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
  const auto renormalised = sampling_steps(logs(kWorked), options).after_top_p;
  CHECK(renormalised[1] == Approx(0.40 / 0.65));
  CHECK(renormalised[3] == Approx(0.25 / 0.65));
  CHECK(renormalised[4] == 0);
}

TEST_CASE("sampling: top-p's boundary is Hugging Face's: a token whose more likely tokens "
          "reach p exactly goes",
          "[sampling]") {
  // TopPLogitsWarper removes a token when the probability of it and the less likely tokens is
  // at most 1 - p. Here (exact in binary) 0.5 + 0.25 = 0.75: with p = 0.75 the third goes
  // (0.25 ≤ 1 - 0.75), just above it stays.
  const std::vector<double> p = {0.25, 0.5, 0.25};
  CHECK(top_p_filter(p, 0.75) == std::vector<double>{0.25, 0.5, 0});  // ties: the lower id first
  CHECK(top_p_filter(p, std::nextafter(0.75, 1.0)) == p);
  CHECK(top_p_filter(p, 0.5) == std::vector<double>{0, 0.5, 0});
}

// On a vocabulary of GPT-2's size with many ties, the filters keep what the plain rule keeps:
// sort every id by probability (ties: the lower id first), keep the first k, or the first ones
// while the kept probability is below p. (They look only at the likeliest few; top-p widens its
// look, 64, 128, ... ids, until the kept probability reaches p: the cases below keep 1, 80, 2,443,
// 38,733, 48,356 and every token.)
TEST_CASE("sampling: top-k and top-p keep on a large vocabulary what sorting all of it keeps",
          "[sampling]") {
  std::vector<double> p(50257);
  SplitMix64 generator(5);
  for (double& x : p) x = static_cast<double>(1 + generator.next() % 97);  // many ties
  p[123] = 2e6;  // one token more likely than the rest together
  p = divided_by_sum(p);
  std::vector<size_t> order(p.size());
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) { return p[a] > p[b]; });
  for (const int64_t k : {1, 2, 40, 1000, 50256}) {
    std::vector<double> expected(p.size(), 0.0);
    for (int64_t i = 0; i < k; ++i) expected[order[i]] = p[order[i]];
    CHECK(top_k_filter(p, k) == expected);
  }
  double mass_of_80 = 0;
  for (size_t i = 0; i < 80; ++i) mass_of_80 += p[order[i]];
  for (const double top_p : {0.3, mass_of_80, 0.5, 0.97, 0.999, 1.0}) {
    std::vector<double> expected(p.size(), 0.0);
    double before = 0;
    for (const size_t id : order) {
      if (before >= top_p) break;
      expected[id] = p[id];
      before += p[id];
    }
    INFO("top-p " << top_p << ", " << kept(expected).size() << " tokens kept");
    CHECK(top_p_filter(p, top_p) == expected);
  }
}

TEST_CASE("sampling: top-k 3 then top-p 0.7 on the lesson's words keeps {mat, bed}, as Hugging "
          "Face",
          "[sampling]") {
  // Top-k 3 keeps mat 0.40, bed 0.25, chair 0.20 and renormalises them to 0.47, 0.29, 0.24;
  // top-p 0.7 then keeps mat (nothing before it) and bed (0.47 before it), and stops: 0.76 ≥ 0.7.
  // (On the unrenormalised 0.40 + 0.25 = 0.65 < 0.7 chair would stay too.)
  SamplingOptions options;
  options.top_k = 3;
  options.top_p = 0.7;
  const SamplingSteps steps = sampling_steps(logs(kWorked), options);
  CHECK(kept(steps.after_top_k) == std::vector<size_t>{1, 3, 4});
  CHECK(steps.after_top_k[1] == Approx(0.40 / 0.85));
  CHECK(steps.after_top_k[4] == Approx(0.20 / 0.85));
  CHECK(kept(steps.after_top_p) == std::vector<size_t>{1, 3});  // mat, bed
  CHECK(steps.after_top_p[1] == Approx(0.40 / 0.65));
  CHECK(steps.after_top_p[3] == Approx(0.25 / 0.65));
}

TEST_CASE("sampling: with one filter, the steps are that filter on the softmax, renormalised",
          "[sampling]") {
  // The distributions drawn from before top-p read top-k's renormalised output, bit for bit:
  // a seeded text that sets only one of them is what it was.
  const std::vector<double> logits = {0.3, -1.2, 2.0, 0.7, 1.1, -0.4};
  SamplingOptions options;
  options.temperature = 0.8;
  const std::vector<double> softmax = softmax_with_temperature(logits, 0.8);
  CHECK(sampling_steps(logits, options).after_top_p == divided_by_sum(softmax));
  options.top_k = 3;
  const SamplingSteps top_k = sampling_steps(logits, options);
  CHECK(top_k.after_temperature == softmax);
  CHECK(top_k.after_top_k == divided_by_sum(top_k_filter(softmax, 3)));
  CHECK(top_k.after_top_p == top_k.after_top_k);
  options.top_k = 0;
  options.top_p = 0.6;
  const SamplingSteps top_p = sampling_steps(logits, options);
  CHECK(top_p.after_top_k == softmax);
  CHECK(top_p.after_top_p == divided_by_sum(top_p_filter(softmax, 0.6)));
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

TEST_CASE("sampling: sample_next draws from its last step with the generator it is given",
          "[sampling]") {
  SamplingOptions options;
  options.top_k = 4;
  options.top_p = 0.9;
  for (uint64_t seed = 1; seed <= 20; ++seed) {
    SplitMix64 generator(seed), same(seed);
    const SamplingSteps steps = sample_next(logs(kWorked), options, generator);
    CHECK(steps.token == draw(sampling_steps(logs(kWorked), options).after_top_p, same));
    CHECK(steps.after_top_p[static_cast<size_t>(steps.token)] > 0);
    CHECK(generator.next() == same.next());  // one number drawn
  }
}

// next_token is sample_next's token, with the generator left where sample_next leaves it: at
// temperature 0 (the first largest logit, ties and -inf included) and above.
TEST_CASE("sampling: next_token is sample_next's token", "[sampling]") {
  const double never = -std::numeric_limits<double>::infinity();
  const std::vector<std::vector<double>> rows = {
      logs(kWorked), {0.5, 3.0, 3.0, -1.0}, {never, 2.0, never, 2.0}, {1.0}};
  for (const double temperature : {0.0, 0.7, 1.0})
    for (const auto& row : rows)
      for (uint64_t seed = 1; seed <= 5; ++seed) {
        SamplingOptions options;
        options.temperature = temperature;
        SplitMix64 generator(seed), same(seed);
        CHECK(next_token(row, options, generator) == sample_next(row, options, same).token);
        CHECK(generator.next() == same.next());
      }
  SplitMix64 generator(1);
  SamplingOptions greedy;
  greedy.temperature = 0;
  greedy.top_p = 0;
  CHECK_THROWS_WITH(next_token(logs(kWorked), greedy, generator),
                    "sampling: top-p must be in (0, 1], not 0");
}

TEST_CASE("sampling: bad options give clear errors", "[sampling]") {
  SamplingOptions options;
  options.temperature = -1;
  CHECK_THROWS_WITH(sampling_steps({1.0}, options),
                    Contains("sampling: temperature must be at least 0, not -1"));
  options = {};
  options.top_k = -2;
  CHECK_THROWS_WITH(sampling_steps({1.0}, options),
                    Contains("sampling: top-k must be at least 0, not -2"));
  options = {};
  options.top_p = 0;
  CHECK_THROWS_WITH(sampling_steps({1.0}, options),
                    Contains("sampling: top-p must be in (0, 1], not 0"));
  CHECK_THROWS_WITH(sampling_steps({}, SamplingOptions{}), Contains("sampling: no logits"));
}
