// examples/translate/data.h — the pairs a run trains and is scored on, from a file or the
// shipped Tatoeba data, always cut by the same seeded split (split.h).
#pragma once

#include <cstdint>
#include <string>

#include "base/data/split.h"

namespace atencion::examples::translate {

// The shipped pairs: examples/translate/data/spa-eng.tsv (Tatoeba, CC BY 2.0 FR; see its
// README). Found next to the executable's source tree, or at ATENCION_TRANSLATE_DATA.
std::string default_data_path();

// Reads `path` ("" = default_data_path()), keeps pairs of at most max_words words per side
// and splits them with `split_seed`.
DataSplit load_split(const std::string& path, int64_t max_words, uint64_t split_seed);

}  // namespace atencion::examples::translate
