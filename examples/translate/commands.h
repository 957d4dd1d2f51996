// examples/translate/commands.h — what `atencion-translate eval` and `show` do.
// Lesson: docs/12-translation.md#bleu, docs/12-translation.md#heat-maps
#pragma once

#include <string>
#include <vector>

#include "decode.h"

namespace atencion::translate {

struct EvalOptions {
  std::string model_dir;
  std::string data_path;  // "" = the test split of the data the model was trained on
  nn::DecodeOptions decode = decode_options(1, 64);
  int64_t samples = 5;    // sample translations to print
  int64_t limit = 0;      // score only the first N pairs (0 = all)
};
// Prints BLEU, exact match and samples to stdout; returns the BLEU score.
double evaluate(const EvalOptions& options);

struct ShowOptions {
  std::string model_dir;
  std::vector<std::string> sentences;  // one or more
  std::string out_dir;  // "" = <model_dir>/show
  bool html = false;    // also write explorer.html (examples/explorer/explorer.h)
};
// Writes SVG heat maps of every layer's and head's encoder self-, decoder masked self- and
// encoder-decoder attention for the first sentence and its translation, and the training
// curves; with `html`, also the attention explorer, one page holding every sentence's maps and
// the curves. Returns the list of files written.
std::vector<std::string> show(const ShowOptions& options);

}  // namespace atencion::translate
