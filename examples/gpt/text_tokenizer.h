// examples/gpt/text_tokenizer.h — how the GPT turns text into ids and back: bytes (the default),
// SentencePiece pieces, or GPT-2's byte-level BPE (gpt2_bpe.h, for its published weights).
// Lesson: docs/15-gpt.md#tokens
//
// Bytes: id = the byte's value (a vocabulary of 256). Nothing to train, every string encodes
// (invalid UTF-8 too: bytes are bytes), and bits per byte is the loss in bits. Sequences are
// longer than with pieces, which costs context.
// SentencePiece (base/data/tokenizer.h): trained on the training split; each line is encoded on
// its own and ends with eos (id 3), which decodes as "\n".
//
// One kind of tokenizer is one class derived from TextTokenizer, held as a
// std::shared_ptr<const TextTokenizer>: the design of the BERT's Pieces (bert/pieces.h) too, so
// that each kind's encode, decode and ids stay together and a new kind is one class, not a case
// added to every function.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "base/data/tokenizer.h"
#include "gpt/gpt2_bpe.h"

namespace atencion::examples::gpt {

class TextTokenizer {
 public:
  static std::shared_ptr<const TextTokenizer> bytes();
  static std::shared_ptr<const TextTokenizer> sentencepiece(Tokenizer tokenizer);
  static std::shared_ptr<const TextTokenizer> gpt2(Gpt2Bpe bpe);
  // The tokenizer a checkpoint's config names ("bytes", "sentencepiece", "gpt2") from the
  // checkpoint's files (those files() wrote). Throws std::runtime_error "<file>: missing ..." for
  // a file it needs and does not find.
  static std::shared_ptr<const TextTokenizer> from_checkpoint(
      const std::string& kind, const std::map<std::string, std::string>& files);
  virtual ~TextTokenizer() = default;

  // Throws std::invalid_argument "<kind>: ..." for text it cannot encode (invalid UTF-8 for the
  // subword kinds, naming the byte offset).
  virtual std::vector<int64_t> encode(std::string_view text) const = 0;
  virtual std::string decode(const std::vector<int64_t>& ids) const = 0;
  // One id as text a learner can read, for the maps and the playground: a space as ␣, a newline
  // as ↵, other control bytes and bytes that are not whole UTF-8 characters as \xNN.
  std::string label(int64_t id) const;
  virtual int64_t vocab_size() const = 0;
  // Where a text starts, for a prompt with nothing in it: "\n" for bytes, eos (the end of the
  // line before) for SentencePiece, <|endoftext|> for GPT-2 (as its training documents).
  virtual int64_t start_id() const = 0;
  virtual const char* kind_name() const = 0;  // "bytes", "sentencepiece", "gpt2"

  // The files a checkpoint keeps for this tokenizer, by name: none for bytes, tokenizer.model
  // for SentencePiece, vocab.json and merges.txt for GPT-2's (a run from --gpt2).
  virtual std::map<std::string, std::string> files() const { return {}; }

 protected:
  // One id's text before label() escapes it (a SentencePiece piece keeps its "▁").
  virtual std::string id_text(int64_t id) const { return decode({id}); }
  // Throws the invalid-UTF-8 refusal above.
  void require_utf8(std::string_view text) const;
};

}  // namespace atencion::examples::gpt
