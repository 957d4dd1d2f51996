// examples/translate/decode.cpp — see decode.h.
#include "decode.h"

namespace atencion::translate {

nn::DecodeOptions decode_options(int64_t beam, int64_t max_length) {
  nn::DecodeOptions options;
  options.beam = beam;
  options.max_length = max_length;
  options.pad_id = Tokenizer::pad_id;
  options.bos_id = Tokenizer::bos_id;
  options.eos_id = Tokenizer::eos_id;
  return options;
}

std::vector<std::string> translate_sentences(const Translator& translator,
                                             const std::vector<std::string>& sentences,
                                             const nn::DecodeOptions& options) {
  std::vector<std::vector<int64_t>> sources;
  // Sources longer than the positional encoding covers are cut (with bos/eos room).
  const size_t longest = static_cast<size_t>(translator.config.max_len - 1);
  for (const auto& sentence : sentences) {
    auto ids = translator.source_tokenizer.encode(sentence);
    if (ids.size() > longest) ids.resize(longest);
    sources.push_back(std::move(ids));
  }
  nn::DecodeOptions bounded = options;
  bounded.max_length = std::min<int64_t>(options.max_length, translator.config.max_len - 1);
  std::vector<std::string> translations;
  for (const auto& ids : nn::decode(*translator.model, sources, bounded))
    translations.push_back(translator.target_tokenizer.decode(ids));
  return translations;
}

}  // namespace atencion::translate
