// examples/base/data/split.cpp — see split.h.
#include "base/data/split.h"

#include <algorithm>
#include <stdexcept>
#include <string>
#include <unordered_map>

#include "base/data/shuffle.h"

namespace atencion::examples {

size_t count_words(std::string_view sentence) {
  size_t words = 0;
  bool in_word = false;
  for (const char c : sentence) {
    const bool is_space = c == ' ' || c == '\t';
    if (!is_space && !in_word) ++words;
    in_word = !is_space;
  }
  return words;
}

std::vector<SentencePair> filter_by_length(const std::vector<SentencePair>& pairs,
                                           size_t max_words) {
  std::vector<SentencePair> kept;
  for (const SentencePair& pair : pairs)
    if (count_words(pair.source) <= max_words && count_words(pair.target) <= max_words)
      kept.push_back(pair);
  return kept;
}

DataSplit split_pairs(const std::vector<SentencePair>& pairs, const SplitOptions& options) {
  // groups[g] lists the indices of the pairs that share one source sentence, in file order;
  // groups are numbered by first appearance, so the numbering does not depend on hashing.
  std::vector<std::vector<size_t>> groups;
  std::unordered_map<std::string_view, size_t> group_of_source;
  for (size_t i = 0; i < pairs.size(); ++i) {
    const auto [entry, is_new] = group_of_source.try_emplace(pairs[i].source, groups.size());
    if (is_new) groups.emplace_back();
    groups[entry->second].push_back(i);
  }
  const size_t held_out = options.dev_sentences + options.test_sentences;
  if (groups.size() <= held_out)
    throw std::invalid_argument(
        "split_pairs: " + std::to_string(groups.size()) + " distinct source sentences, but " +
        "dev (" + std::to_string(options.dev_sentences) + ") + test (" +
        std::to_string(options.test_sentences) + ") need at least " +
        std::to_string(held_out + 1) + " to leave some for training");

  std::vector<size_t> group_order(groups.size());
  for (size_t g = 0; g < groups.size(); ++g) group_order[g] = g;
  SplitMix64 generator(options.seed);
  shuffle(group_order, generator);

  DataSplit split;
  for (size_t rank = 0; rank < group_order.size(); ++rank) {
    std::vector<SentencePair>& destination = rank < options.test_sentences ? split.test
                                             : rank < held_out             ? split.dev
                                                                           : split.train;
    for (const size_t i : groups[group_order[rank]]) destination.push_back(pairs[i]);
  }
  return split;
}

DataSplit split_run_pairs(std::vector<SentencePair> pairs, int64_t max_words, uint64_t seed) {
  if (max_words > 0) pairs = filter_by_length(pairs, static_cast<size_t>(max_words));
  SplitOptions options;
  options.seed = seed;
  options.dev_sentences = std::min<size_t>(options.dev_sentences, pairs.size() / 20 + 1);
  options.test_sentences = std::min<size_t>(options.test_sentences, pairs.size() / 10 + 1);
  return split_pairs(pairs, options);
}

}  // namespace atencion::examples
