// examples/translate/decode.h — text in, text out: tokenize, decode (nn/decoding.h), detokenize.
// Lesson: docs/12-translation.md#decoding
#pragma once

#include <string>
#include <vector>

#include "nn/decoding.h"
#include "translator.h"

namespace atencion::translate {

// nn::DecodeOptions with the tokenizers' special ids filled in.
nn::DecodeOptions decode_options(int64_t beam, int64_t max_length);

std::vector<std::string> translate_sentences(const Translator& translator,
                                             const std::vector<std::string>& sentences,
                                             const nn::DecodeOptions& options);

}  // namespace atencion::translate
