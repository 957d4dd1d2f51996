// examples/translate/data.cpp — see data.h.
#include "translate/data.h"

#include <cstdlib>
#include <filesystem>

#include "base/data/tsv.h"

namespace atencion::examples::translate {

std::string default_data_path() {
  if (const char* override_path = std::getenv("ATENCION_TRANSLATE_DATA")) return override_path;
  const std::string shipped = std::string(ATENCION_TRANSLATE_DATA_DIR) + "/spa-eng.tsv";
  if (std::filesystem::exists(shipped)) return shipped;
  return std::string(ATENCION_TRANSLATE_INSTALLED_DATA_DIR) + "/spa-eng.tsv";
}

DataSplit load_split(const std::string& path, int64_t max_words, uint64_t split_seed) {
  const std::string file = path.empty() ? default_data_path() : path;
  std::vector<SentencePair> pairs = read_pairs(file);
  if (max_words > 0) pairs = filter_by_length(pairs, static_cast<size_t>(max_words));
  SplitOptions options;
  options.seed = split_seed;
  // Small files (tests, user data) get a split in proportion; the default data gets 1000/2000.
  options.dev_sentences = std::min<size_t>(options.dev_sentences, pairs.size() / 20 + 1);
  options.test_sentences = std::min<size_t>(options.test_sentences, pairs.size() / 10 + 1);
  return split_pairs(pairs, options);
}

}  // namespace atencion::examples::translate
