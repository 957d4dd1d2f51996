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
  return split_run_pairs(read_pairs(path.empty() ? default_data_path() : path), max_words,
                         split_seed);
}

}  // namespace atencion::examples::translate
