// Tests for examples/base/data/split.cpp and shuffle.cpp: the length filter, the seeded
// shuffle and the train/dev/test split.
#include <catch2/catch.hpp>

#include <algorithm>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "base/data/shuffle.h"
#include "base/data/split.h"

using namespace atencion::examples;

using Catch::Matchers::Contains;

TEST_CASE("SplitMix64 gives the reference sequence", "[translate][shuffle]") {
  // The first outputs for seed 0 in the reference implementation (Vigna's splitmix64.c),
  // also printed by: python3 -c "
  //   M=2**64-1; s=0
  //   for _ in range(3):
  //     s=(s+0x9E3779B97F4A7C15)&M; z=s; z=((z^(z>>30))*0xBF58476D1CE4E5B9)&M
  //     z=((z^(z>>27))*0x94D049BB133111EB)&M; print(hex(z^(z>>31)))"
  SplitMix64 generator(0);
  CHECK(generator.next() == 0xe220a8397b1dcdafull);
  CHECK(generator.next() == 0x6e789e6aa1b965f4ull);
  CHECK(generator.next() == 0x06c45d188009454full);
}

TEST_CASE("SplitMix64::below stays in range and covers it evenly", "[translate][shuffle]") {
  SplitMix64 generator(7);
  std::vector<int> counts(6, 0);
  for (int i = 0; i < 60000; ++i) ++counts[generator.below(6)];
  for (const int count : counts) CHECK(std::abs(count - 10000) < 400);  // ~4 sigma
}

TEST_CASE("shuffle is a seeded permutation", "[translate][shuffle]") {
  std::vector<int> items(100);
  for (int i = 0; i < 100; ++i) items[i] = i;
  auto first = items;
  auto second = items;
  SplitMix64 generator_a(42), generator_b(42), generator_c(43);
  shuffle(first, generator_a);
  shuffle(second, generator_b);
  CHECK(first == second);  // same seed, same order
  CHECK(first != items);
  auto third = items;
  shuffle(third, generator_c);
  CHECK(third != first);   // another seed, another order
  std::sort(first.begin(), first.end());
  CHECK(first == items);   // nothing lost or repeated
}

TEST_CASE("count_words counts runs between spaces", "[translate][split]") {
  CHECK(count_words("¿Cuál es tu nombre?") == 4);
  CHECK(count_words("  Hola.  ") == 1);
  CHECK(count_words("a\tb c") == 3);
  CHECK(count_words("") == 0);
}

TEST_CASE("filter_by_length keeps pairs whose two sides are short enough",
          "[translate][split]") {
  const std::vector<SentencePair> pairs = {
      {"uno dos tres", "one two"}, {"uno", "one two three four"}, {"uno dos", "one two"}};
  const auto kept = filter_by_length(pairs, 2);
  REQUIRE(kept.size() == 1);
  CHECK(kept[0].source == "uno dos");
  CHECK(filter_by_length(pairs, 4).size() == 3);
}

namespace {

// 300 source sentences; source k has (k % 3) + 1 translations.
std::vector<SentencePair> make_pairs() {
  std::vector<SentencePair> pairs;
  for (int k = 0; k < 300; ++k)
    for (int t = 0; t <= k % 3; ++t)
      pairs.push_back({"fuente " + std::to_string(k),
                       "target " + std::to_string(k) + " version " + std::to_string(t)});
  return pairs;
}

std::set<std::string> sources_of(const std::vector<SentencePair>& pairs) {
  std::set<std::string> sources;
  for (const auto& pair : pairs) sources.insert(pair.source);
  return sources;
}

}  // namespace

TEST_CASE("split_pairs deals whole source groups to test, dev and train",
          "[translate][split]") {
  const auto pairs = make_pairs();  // 600 pairs
  SplitOptions options;
  options.seed = 5;
  options.dev_sentences = 20;
  options.test_sentences = 30;
  const DataSplit split = split_pairs(pairs, options);

  const auto train = sources_of(split.train);
  const auto dev = sources_of(split.dev);
  const auto test = sources_of(split.test);
  CHECK(test.size() == 30);
  CHECK(dev.size() == 20);
  CHECK(train.size() == 250);
  // No source sentence is in two splits.
  for (const auto& source : test) {
    CHECK(train.count(source) == 0);
    CHECK(dev.count(source) == 0);
  }
  for (const auto& source : dev) CHECK(train.count(source) == 0);
  // Every pair lands in exactly one split, with all the translations of its source.
  CHECK(split.train.size() + split.dev.size() + split.test.size() == pairs.size());
  std::map<std::string, int> translations_in_test;
  for (const auto& pair : split.test) ++translations_in_test[pair.source];
  for (const auto& [source, count] : translations_in_test)
    CHECK(count == std::stoi(source.substr(7)) % 3 + 1);
}

TEST_CASE("split_pairs is fixed by its seed", "[translate][split]") {
  const auto pairs = make_pairs();
  SplitOptions options;
  options.dev_sentences = 20;
  options.test_sentences = 30;
  options.seed = 1;
  const DataSplit first = split_pairs(pairs, options);
  const DataSplit again = split_pairs(pairs, options);
  options.seed = 2;
  const DataSplit other = split_pairs(pairs, options);
  const auto targets = [](const std::vector<SentencePair>& split) {
    std::vector<std::string> targets;
    for (const auto& pair : split) targets.push_back(pair.target);
    return targets;
  };
  CHECK(targets(first.test) == targets(again.test));
  CHECK(targets(first.dev) == targets(again.dev));
  CHECK(targets(first.train) == targets(again.train));
  CHECK(sources_of(first.test) != sources_of(other.test));
  // The test split is a sample of the whole range, not the first lines of the file.
  int from_second_half = 0;
  for (const auto& source : sources_of(first.test))
    if (std::stoi(source.substr(7)) >= 150) ++from_second_half;
  CHECK(from_second_half > 5);
  CHECK(from_second_half < 25);
}

TEST_CASE("split_pairs refuses data too small for dev and test", "[translate][split]") {
  const std::vector<SentencePair> pairs = {{"a", "a"}, {"b", "b"}, {"a", "A"}};
  SplitOptions options;
  options.dev_sentences = 1;
  options.test_sentences = 1;
  CHECK_THROWS_WITH(split_pairs(pairs, options),
                    Contains("2 distinct source sentences") && Contains("at least 3"));
}

TEST_CASE("the default split of the shipped data", "[translate][split]") {
  const auto pairs =
      filter_by_length(read_pairs(ATENCION_TRANSLATE_DATA_DIR "/spa-eng.tsv"), 10);
  CHECK(pairs.size() == 106982);  // awk: both sides with split($i, w, " ") <= 10
  const DataSplit split = split_pairs(pairs, SplitOptions{});
  CHECK(sources_of(split.test).size() == 2000);
  CHECK(sources_of(split.dev).size() == 1000);
  // Pinned: scores are only comparable across versions if the split stays the same.
  CHECK(split.test.size() == 2108);
  CHECK(split.dev.size() == 1053);
  CHECK(split.train.size() == 103821);
  CHECK(split.test.front().source == "¿Puedes enseñarme esa corbata?");
  CHECK(split.dev.front().target == "I was tired, but continued working.");
  CHECK(split.train.front().source == "Tú dijiste eso.");
  CHECK(split.train.size() + split.dev.size() + split.test.size() == pairs.size());
  const auto train = sources_of(split.train);
  int shared = 0;
  for (const auto& source : sources_of(split.test)) shared += static_cast<int>(train.count(source));
  CHECK(shared == 0);
}
