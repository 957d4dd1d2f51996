// examples/bert/pieces.cpp — see pieces.h.
#include "bert/pieces.h"

namespace atencion::examples::bert {

bool Pieces::is_special(int64_t id) const {
  return id == special_.pad || id == special_.unk || id == special_.cls || id == special_.sep ||
         id == special_.mask;
}

std::vector<int64_t> Pieces::encode(std::string_view text) const {
  static constexpr std::string_view kMask = "[MASK]";
  std::vector<int64_t> ids{special_.cls};
  while (true) {
    const size_t found = text.find(kMask);
    const std::vector<int64_t> part = encode_text(text.substr(0, found));
    ids.insert(ids.end(), part.begin(), part.end());
    if (found == std::string_view::npos) break;
    ids.push_back(special_.mask);
    text.remove_prefix(found + kMask.size());
  }
  ids.push_back(special_.sep);
  return ids;
}

std::vector<std::string> Pieces::pieces(const std::vector<int64_t>& ids) const {
  std::vector<std::string> shown;
  for (const int64_t id : ids) shown.push_back(piece(id));
  return shown;
}

SentencePieces::SentencePieces(Tokenizer tokenizer) : tokenizer_(std::move(tokenizer)) {
  special_ = {Tokenizer::pad_id, Tokenizer::unk_id, Tokenizer::bos_id, Tokenizer::eos_id,
              tokenizer_.vocab_size()};
}

std::vector<int64_t> SentencePieces::encode_text(std::string_view text) const {
  return tokenizer_.encode(text);
}

std::string SentencePieces::piece(int64_t id) const {
  if (id == special_.pad) return "[PAD]";
  if (id == special_.unk) return "[UNK]";
  if (id == special_.cls) return "[CLS]";
  if (id == special_.sep) return "[SEP]";
  if (id == special_.mask) return "[MASK]";
  return tokenizer_.piece(id);
}

WordPieces::WordPieces(WordPiece wordpiece) : wordpiece_(std::move(wordpiece)) {
  special_ = {wordpiece_.id_of("[PAD]"), wordpiece_.id_of("[UNK]"), wordpiece_.id_of("[CLS]"),
              wordpiece_.id_of("[SEP]"), wordpiece_.id_of("[MASK]")};
}

std::vector<int64_t> WordPieces::encode_text(std::string_view text) const {
  return wordpiece_.encode(text);
}

}  // namespace atencion::examples::bert
