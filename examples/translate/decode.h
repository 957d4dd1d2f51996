// examples/translate/decode.h — text in, text out: tokenize, decode
// (examples/base/decoding/encoder_decoder.h), detokenize.
// Lesson: docs/12-translation.md#decoding
#pragma once

#include <string>
#include <vector>

#include "base/decoding/encoder_decoder.h"
#include "translate/translator.h"

namespace atencion::examples::translate {

// decoding::DecodeOptions with the tokenizers' special ids filled in.
decoding::DecodeOptions decode_options(int64_t beam, int64_t max_length);

// The most source pieces the model's positions cover: longer sources are cut to this here, and
// refused by the server (docs/17-serving.md).
int64_t longest_source(const Translator& translator);

// Output ids (no bos, no eos) for source ids, with max_length bounded by the model's positions:
// what translate_sentences runs between its tokenizers (and the server, which needs the ids).
// `maps` (optional): the wanted sources' maps from the same decoding (decoding::decode).
std::vector<std::vector<int64_t>> decode_ids(const Translator& translator,
                                             const std::vector<std::vector<int64_t>>& sources,
                                             const decoding::DecodeOptions& options,
                                             decoding::MapsCollection* maps = nullptr);

std::vector<std::string> translate_sentences(const Translator& translator,
                                             const std::vector<std::string>& sentences,
                                             const decoding::DecodeOptions& options);

// One translation per line, in the lines' order: the non-blank lines are translated together
// (decoding::decode sorts them by length into batches), a blank line (spaces and tabs only) gives an
// empty translation, and a Windows line end ('\r') is dropped first. Each translation is the one
// its line gets alone.
std::vector<std::string> translate_lines(const Translator& translator,
                                         const std::vector<std::string>& lines,
                                         const decoding::DecodeOptions& options);

}  // namespace atencion::examples::translate
