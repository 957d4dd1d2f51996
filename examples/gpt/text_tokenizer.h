// examples/gpt/text_tokenizer.h — how the GPT turns text into ids and back: bytes (the default),
// SentencePiece pieces, or GPT-2's byte-level BPE (gpt2_bpe.h, for its published weights).
// Lesson: docs/15-gpt.md#tokens
//
// Bytes: id = the byte's value (a vocabulary of 256). Nothing to train, every string encodes
// (invalid UTF-8 too: bytes are bytes), and bits per byte is the loss in bits. Sequences are
// longer than with pieces, which costs context.
// SentencePiece (base/data/tokenizer.h): trained on the training split; each line is encoded on
// its own and ends with eos (id 3), which decodes as "\n".
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "base/data/tokenizer.h"
#include "gpt/gpt2_bpe.h"

namespace atencion::examples::gpt {

class TextTokenizer {
 public:
  enum class Kind { Bytes, SentencePiece, Gpt2 };

  static TextTokenizer bytes();
  static TextTokenizer sentencepiece(Tokenizer tokenizer);
  static TextTokenizer gpt2(Gpt2Bpe bpe);

  // Throws std::invalid_argument "<kind>: ..." for text it cannot encode (invalid UTF-8 for the
  // subword kinds, naming the byte offset).
  std::vector<int64_t> encode(std::string_view text) const;
  std::string decode(const std::vector<int64_t>& ids) const;
  // One id as text a learner can read, for the maps and the playground: a space as ␣, a newline
  // as ↵, other control bytes and bytes that are not whole UTF-8 characters as \xNN.
  std::string label(int64_t id) const;
  int64_t vocab_size() const;
  // Where a text starts, for a prompt with nothing in it: "\n" for bytes, eos (the end of the
  // line before) for SentencePiece, <|endoftext|> for GPT-2 (as its training documents).
  int64_t start_id() const;
  Kind kind() const { return kind_; }
  const char* kind_name() const;  // "bytes", "sentencepiece", "gpt2"

  // The file a checkpoint keeps for this tokenizer ("" and nothing for bytes).
  std::string file_name() const;
  std::string file_bytes() const;
  // The tokenizer a checkpoint's config names ("bytes", "sentencepiece") from its files.
  static TextTokenizer from_checkpoint(const std::string& kind, const std::string& file_bytes);

 private:
  Kind kind_ = Kind::Bytes;
  std::shared_ptr<const Tokenizer> pieces_;
  std::shared_ptr<const Gpt2Bpe> bpe_;
};

}  // namespace atencion::examples::gpt
