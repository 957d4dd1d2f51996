// tests/examples/base/decoding/test_search.cpp — examples/base/decoding/search.cpp and
// beam_search.cpp over a model small enough to write out: a bigram table (the next token's
// logits depend on the last token only), whose scorer also checks that every search keeps the
// NextTokenScorer contract (one token more per call, rows continued as keep_rows said).
#include <catch2/catch.hpp>

#include <cmath>
#include <functional>
#include <limits>

#include "base/decoding/search.h"
#include "tensor/random.h"

using namespace atencion;
using namespace atencion::examples;
using namespace atencion::examples::decoding;
using Catch::Matchers::Contains;

namespace {

constexpr int64_t kVocab = 6, kEos = 5;

// logits[a][b]: the score of b after a, random from `seed`, eos a little likelier.
std::vector<std::vector<double>> bigram_table(uint64_t seed) {
  Generator generator(seed);
  const std::vector<double> draws = randn({kVocab * kVocab}, generator, DType::Float64).to_vector();
  std::vector<std::vector<double>> table(kVocab, std::vector<double>(kVocab));
  for (int64_t a = 0; a < kVocab; ++a)
    for (int64_t b = 0; b < kVocab; ++b) table[a][b] = draws[a * kVocab + b] + (b == kEos) * 0.3;
  return table;
}

class BigramScorer : public NextTokenScorer {
 public:
  explicit BigramScorer(std::vector<std::vector<double>> table) : table_(std::move(table)) {}
  Tensor logits(const std::vector<std::vector<int64_t>>& prefixes) override {
    for (size_t r = 0; r < prefixes.size(); ++r) {
      REQUIRE(prefixes[r].size() == prefixes[0].size());
      if (!last_.empty()) {  // one token more than the row it continues
        const auto& parent = last_[kept_.empty() ? r : static_cast<size_t>(kept_[r])];
        REQUIRE(prefixes[r].size() == parent.size() + 1);
        REQUIRE(std::equal(parent.begin(), parent.end(), prefixes[r].begin()));
      }
    }
    if (!last_.empty() && kept_.empty()) REQUIRE(prefixes.size() == last_.size());
    last_ = prefixes;
    kept_.clear();
    ++calls;
    rows_per_call.push_back(prefixes.size());
    std::vector<double> values;
    for (const auto& prefix : prefixes)
      values.insert(values.end(), table_[prefix.back()].begin(), table_[prefix.back()].end());
    return Tensor::from_vector(values, {static_cast<int64_t>(prefixes.size()), kVocab},
                               DType::Float64);
  }
  void keep_rows(const std::vector<int64_t>& parents) override { kept_ = parents; }
  int calls = 0;
  std::vector<size_t> rows_per_call;

 private:
  std::vector<std::vector<double>> table_;
  std::vector<std::vector<int64_t>> last_;
  std::vector<int64_t> kept_;
};

std::vector<double> log_softmax_of(const std::vector<double>& z) {
  double largest = -std::numeric_limits<double>::infinity(), total = 0;
  for (double x : z) largest = std::max(largest, x);
  for (double x : z) total += std::exp(x - largest);
  std::vector<double> out;
  for (double x : z) out.push_back(x - largest - std::log(total));
  return out;
}

SearchOptions options(int64_t beam, int64_t max_length) {
  SearchOptions o;
  o.beam = beam;
  o.max_length = max_length;
  o.eos_id = kEos;
  o.never_output = {0};
  o.length_penalty = 0;
  return o;
}

const std::vector<std::vector<int64_t>> kStarts = {{1, 1}, {2, 3}, {4, 2}, {3, 1}};

}  // namespace

TEST_CASE("search: greedy is the argmax chain of the table", "[search]") {
  const auto table = bigram_table(1);
  BigramScorer scorer(table);
  const auto outputs = greedy(scorer, kStarts, options(1, 6));
  for (size_t i = 0; i < kStarts.size(); ++i) {
    INFO("start " << i);
    std::vector<int64_t> expected;
    int64_t last = kStarts[i].back();
    while (static_cast<int64_t>(expected.size()) < 6) {
      int64_t best = 1;  // 0 may not come out
      for (int64_t v = 2; v < kVocab; ++v)
        if (table[last][v] > table[last][best]) best = v;
      if (best == kEos) break;
      expected.push_back(last = best);
    }
    CHECK(outputs[i] == expected);
  }
}

TEST_CASE("search: a beam wide enough finds the most probable output, width 1 is greedy",
          "[search]") {
  const auto table = bigram_table(2);
  std::vector<std::vector<double>> log_p;
  for (const auto& row : table) log_p.push_back(log_softmax_of(row));
  constexpr int64_t max_length = 3;
  for (const auto& start : kStarts) {
    // Every output of at most 3 tokens (or 3 without eos), by brute force.
    double best = -std::numeric_limits<double>::infinity();
    std::vector<int64_t> best_output;
    std::function<void(std::vector<int64_t>&, int64_t, double)> extend =
        [&](std::vector<int64_t>& output, int64_t last, double so_far) {
          for (int64_t token = 1; token < kVocab; ++token) {
            const double total = so_far + log_p[last][token];
            if (token != kEos && static_cast<int64_t>(output.size()) + 1 < max_length) {
              output.push_back(token);
              extend(output, token, total);
              output.pop_back();
              continue;
            }
            if (total > best) {
              best = total;
              best_output = output;
              if (token != kEos) best_output.push_back(token);
            }
          }
        };
    std::vector<int64_t> empty;
    extend(empty, start.back(), 0.0);
    BigramScorer wide(table), one(table), plain(table);
    CHECK(beam_search(wide, {start}, options(125, max_length))[0] == best_output);
    CHECK(beam_search(one, {start}, options(1, max_length)) ==
          greedy(plain, {start}, options(1, max_length)));
  }
}

TEST_CASE("search: a beam stays full when some finish, and answers with a finished one",
          "[search]") {
  // Probabilities by hand (each row's logits are its log-probabilities; 0 is never output):
  //   after 1: 2 (0.5), eos (0.3), 3 (0.2)     after 2: 4 (0.9), eos (0.1)
  //   after 3: eos (0.9), 4 (0.1)               after 4: 4 (0.5), eos (0.5)
  // Beam 2 from [1]. Step 1 ranks [1 2] (log p -0.69), [1 eos] (-1.20), [1 3] (-1.61): [1 eos]
  // is in the best two, so it finishes, and [1 3], the next, takes its place: 2 rows go on.
  // Step 2 ranks [1 2 4] (-0.80), [1 3 eos] (-1.71), [1 2 eos] (-3.00): [1 3 eos] finishes,
  // the second, and the search stops. [1 2 4] scores best only because it has not yet paid
  // for its end; the answer is the best finished one, [1 eos]: the empty output.
  const double tiny = std::log(1e-12);
  std::vector<std::vector<double>> table(kVocab, std::vector<double>(kVocab, tiny));
  auto set = [&](int64_t after, int64_t token, double p) { table[after][token] = std::log(p); };
  set(1, 2, 0.5), set(1, kEos, 0.3), set(1, 3, 0.2);
  set(2, 4, 0.9), set(2, kEos, 0.1);
  set(3, kEos, 0.9), set(3, 4, 0.1);
  set(4, 4, 0.5), set(4, kEos, 0.5);
  BigramScorer scorer(table);
  const auto outputs = beam_search(scorer, {{1}}, options(2, 10));
  CHECK(scorer.rows_per_call == std::vector<size_t>{1, 2});
  CHECK(outputs[0].empty());
}

TEST_CASE("search: sampling draws each row as sampling.h says, alone or in a batch", "[search]") {
  const auto table = bigram_table(3);
  SearchOptions sampled = options(1, 12);
  sampled.sample = true;
  sampled.sampling.temperature = 1.3;
  sampled.sampling.top_k = 3;
  sampled.sampling.seed = 9;
  BigramScorer scorer(table);
  const auto outputs = search(scorer, kStarts, sampled);
  for (size_t i = 0; i < kStarts.size(); ++i) {
    INFO("start " << i);
    // Written out: one generator per row, token 0 at -inf, draw until eos or 12 tokens.
    SplitMix64 generator(9);
    std::vector<int64_t> expected;
    int64_t last = kStarts[i].back();
    while (static_cast<int64_t>(expected.size()) < 12) {
      std::vector<double> logits = table[last];
      logits[0] = -std::numeric_limits<double>::infinity();
      const int64_t token = draw(sampling_steps(logits, sampled.sampling).after_top_p, generator);
      if (token == kEos) break;
      expected.push_back(last = token);
    }
    CHECK(outputs[i] == expected);
    BigramScorer alone(table);
    CHECK(search(alone, {kStarts[i]}, sampled)[0] == expected);
  }
}

TEST_CASE("search: on_step sees each row's output so far, no eos runs to max_length",
          "[search]") {
  const auto table = bigram_table(4);
  for (const bool sampled : {false, true}) {
    SearchOptions o = options(1, 5);
    o.sample = sampled;
    o.eos_id = -1;  // as the GPT: no token ends a text
    std::vector<std::vector<int64_t>> seen;
    o.on_step = [&](size_t row, const std::vector<int64_t>& output) {
      CHECK(row == 0);
      seen.push_back(output);
    };
    BigramScorer scorer(table);
    const auto output = search(scorer, {{2}}, o)[0];
    CHECK(output.size() == 5);
    REQUIRE(seen.size() == 5);
    for (size_t step = 0; step < 5; ++step)
      CHECK(seen[step] == std::vector<int64_t>(output.begin(), output.begin() + step + 1));
    CHECK(scorer.calls == 5);  // none after the last token
  }
}

TEST_CASE("search: bad options give clear errors", "[search]") {
  BigramScorer scorer(bigram_table(1));
  CHECK_THROWS_WITH(
      search(scorer, kStarts, options(0, 4)),
      Contains("search: beam must be at least 1 and max_length at least 0 (got 0, 4)"));
  SearchOptions beam_and_sample = options(3, 4);
  beam_and_sample.sample = true;
  CHECK_THROWS_WITH(search(scorer, kStarts, beam_and_sample),
                    Contains("search: sampling draws one token a row, not a beam of 3"));
  CHECK_THROWS_WITH(search(scorer, {{1}, {2, 3}}, options(1, 4)),
                    Contains("search: the starts have different lengths (1 and 2)"));
  CHECK(search(scorer, kStarts, options(1, 0)) == std::vector<std::vector<int64_t>>(4));
}
