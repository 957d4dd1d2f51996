// examples/base/data/split.h — the length filter and the fixed, seeded train/dev/test split.
// Lesson: docs/12-translation.md#data
//
// Tatoeba often lists one Spanish sentence with several English translations ("Ve." /
// "Vete." / "Vaya." <-> "Go."). Splitting pair by pair would put one translation of a
// sentence in training and another in the test, and the test would then reward memory.
// So the split deals out whole groups: every pair with the same Spanish sentence goes to
// the same split. Groups are shuffled with our own seeded generator (shuffle.h), so a seed
// names one split on every machine.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string_view>
#include <vector>

#include "base/data/tsv.h"

namespace atencion::examples {

// Words as the length filter counts them: runs of characters between spaces or tabs
// ("¿Cuál es tu nombre?" has 4).
size_t count_words(std::string_view sentence);

// The pairs whose source and target both have at most `max_words` words, in their order.
std::vector<SentencePair> filter_by_length(const std::vector<SentencePair>& pairs,
                                           size_t max_words);

struct SplitOptions {
  uint64_t seed = 20180513;        // the date of the manythings release; any value works
  size_t dev_sentences = 1000;     // distinct source sentences in dev
  size_t test_sentences = 2000;    // distinct source sentences in test
};

struct DataSplit {
  std::vector<SentencePair> train;
  std::vector<SentencePair> dev;
  std::vector<SentencePair> test;
};

// Groups the pairs by source sentence (exact bytes), shuffles the groups from
// `options.seed`, and gives the first `test_sentences` groups to test, the next
// `dev_sentences` to dev and the rest to train. Within a split, pairs follow the shuffled
// group order, and a group keeps its file order. Throws std::invalid_argument when there are
// not more groups than dev + test need.
DataSplit split_pairs(const std::vector<SentencePair>& pairs, const SplitOptions& options);

// A run's split, as the translator and the GPT's instruction fine-tune both cut it (so the two
// are scored on the same test sentences): the pairs of at most `max_words` words a side (0: all),
// split with `seed`, 1000 dev and 2000 test sentences, fewer in proportion for a small file
// (a twentieth and a tenth of its pairs, plus one).
DataSplit split_run_pairs(std::vector<SentencePair> pairs, int64_t max_words, uint64_t seed);

}  // namespace atencion::examples
