// examples/bert/text.h — the text a BERT learns from: any UTF-8 file, one sentence (or passage)
// a line, or by default the Spanish side of the Tatoeba pairs the translator ships.
// Lesson: docs/16-bert.md#train-one
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace atencion::examples::bert {

// The lines of `path` that are not blank, trimmed; "" = the shipped pairs' distinct Spanish
// sentences. std::invalid_argument naming the file and byte offset for invalid UTF-8, and for
// a file without a sentence.
std::vector<std::string> read_sentences(const std::string& path);

struct TextSplit {
  std::vector<std::string> train, held_out;
};
// A seeded shuffle, then the first min(1000, n / 20 + 1) sentences are held out.
TextSplit split_sentences(std::vector<std::string> sentences, uint64_t seed);

}  // namespace atencion::examples::bert
