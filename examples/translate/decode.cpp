// examples/translate/decode.cpp — see decode.h.
#include "translate/decode.h"

namespace atencion::examples::translate {

decoding::DecodeOptions decode_options(int64_t beam, int64_t max_length) {
  decoding::DecodeOptions options;
  options.beam = beam;
  options.max_length = max_length;
  options.pad_id = Tokenizer::pad_id;
  options.bos_id = Tokenizer::bos_id;
  options.eos_id = Tokenizer::eos_id;
  return options;
}

// The positional encoding covers max_len positions; one is kept for eos (bos in the target).
int64_t longest_source(const Translator& translator) { return translator.config.max_len - 1; }

std::vector<std::vector<int64_t>> decode_ids(const Translator& translator,
                                             const std::vector<std::vector<int64_t>>& sources,
                                             const decoding::DecodeOptions& options,
                                             decoding::MapsCollection* maps) {
  decoding::DecodeOptions bounded = options;
  bounded.max_length = std::min<int64_t>(options.max_length, translator.config.max_len - 1);
  return decoding::decode(*translator.model, sources, bounded, maps);
}

std::vector<std::string> translate_sentences(const Translator& translator,
                                             const std::vector<std::string>& sentences,
                                             const decoding::DecodeOptions& options) {
  std::vector<std::vector<int64_t>> sources;
  // Sources longer than the positional encoding covers are cut.
  const size_t longest = static_cast<size_t>(longest_source(translator));
  for (const auto& sentence : sentences) {
    auto ids = translator.source_tokenizer.encode(sentence);
    if (ids.size() > longest) ids.resize(longest);
    sources.push_back(std::move(ids));
  }
  std::vector<std::string> translations;
  for (const auto& ids : decode_ids(translator, sources, options))
    translations.push_back(translator.target_tokenizer.decode(ids));
  return translations;
}

std::vector<std::string> translate_lines(const Translator& translator,
                                         const std::vector<std::string>& lines,
                                         const decoding::DecodeOptions& options) {
  std::vector<std::string> sentences;
  std::vector<size_t> line_of_sentence;
  for (size_t i = 0; i < lines.size(); ++i) {
    std::string line = lines[i];
    if (!line.empty() && line.back() == '\r') line.pop_back();
    if (line.find_first_not_of(" \t") == std::string::npos) continue;  // blank: stays blank
    sentences.push_back(std::move(line));
    line_of_sentence.push_back(i);
  }
  std::vector<std::string> translations(lines.size());
  std::vector<std::string> translated = translate_sentences(translator, sentences, options);
  for (size_t s = 0; s < translated.size(); ++s)
    translations[line_of_sentence[s]] = std::move(translated[s]);
  return translations;
}

}  // namespace atencion::examples::translate
