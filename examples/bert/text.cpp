// examples/bert/text.cpp — see text.h.
#include "bert/text.h"

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <stdexcept>
#include <unordered_set>

#include "base/data/shuffle.h"
#include "base/data/tsv.h"
#include "base/data/utf8.h"
#include "base/io/file_checks.h"
#include "bert/pair_task.h"

namespace atencion::examples::bert {
namespace {

std::string shipped_pairs_path() {
  if (const char* override_path = std::getenv("ATENCION_TRANSLATE_DATA")) return override_path;
  const std::string shipped = std::string(ATENCION_BERT_PAIRS_DIR) + "/spa-eng.tsv";
  if (std::filesystem::exists(shipped)) return shipped;
  return std::string(ATENCION_BERT_INSTALLED_PAIRS_DIR) + "/spa-eng.tsv";
}

std::string trimmed(std::string_view line) {
  const auto first = line.find_first_not_of(" \t\r");
  if (first == std::string_view::npos) return "";
  return std::string(line.substr(first, line.find_last_not_of(" \t\r") - first + 1));
}

}  // namespace

std::vector<SentencePair> shipped_pairs() { return read_pairs(shipped_pairs_path()); }

std::vector<std::string> read_sentences(const std::string& path) {
  std::vector<std::string> sentences;
  if (path.empty()) {
    std::unordered_set<std::string> seen;
    for (const SentencePair& pair : shipped_pairs())
      if (seen.insert(pair.source).second) sentences.push_back(pair.source);
    return sentences;
  }
  const std::string text = read_file(path);
  if (const auto bad = find_invalid_utf8(text))
    throw std::invalid_argument(path + ": invalid UTF-8 at byte " + std::to_string(*bad));
  size_t start = text.compare(0, 3, "\xEF\xBB\xBF") == 0 ? 3 : 0;  // a byte-order mark
  while (start < text.size()) {
    size_t end = text.find('\n', start);
    if (end == std::string::npos) end = text.size();
    std::string line = trimmed(std::string_view(text).substr(start, end - start));
    if (!line.empty()) sentences.push_back(std::move(line));
    start = end + 1;
  }
  if (sentences.empty()) throw std::invalid_argument(path + ": no sentence in it");
  return sentences;
}

TextSplit split_sentences(std::vector<std::string> sentences, uint64_t seed) {
  SplitMix64 generator(seed);
  shuffle(sentences, generator);
  const size_t held = std::min<size_t>(1000, sentences.size() / 20 + 1);
  TextSplit split;
  split.held_out.assign(sentences.begin(), sentences.begin() + static_cast<long>(held));
  split.train.assign(sentences.begin() + static_cast<long>(held), sentences.end());
  if (split.train.empty())
    throw std::invalid_argument("the text has " + std::to_string(sentences.size()) +
                                " sentence(s): too few to hold some out and train on the rest");
  return split;
}

}  // namespace atencion::examples::bert
