// examples/bert/pieces.h — the word pieces a BERT reads, whichever tokenizer cuts them: our own
// SentencePiece model (what `train` learns) or BERT's WordPiece vocabulary (`--bert DIR`).
// Lesson: docs/16-bert.md#three-ways-to-cut-words
//
// A BERT needs five special pieces besides the words: [PAD] fills a short row, [UNK] stands for
// what the vocabulary cannot spell, [CLS] starts every input, [SEP] ends it, and [MASK] hides
// the pieces the model must guess. The literal text "[MASK]" in an input is that piece.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "base/data/tokenizer.h"
#include "bert/wordpiece.h"

namespace atencion::examples::bert {

struct SpecialIds {
  int64_t pad = 0, unk = 1, cls = 2, sep = 3, mask = 4;
};

class Pieces {
 public:
  virtual ~Pieces() = default;
  // Pieces of plain text (no "[MASK]" inside), without [CLS] or [SEP].
  virtual std::vector<int64_t> encode_text(std::string_view text) const = 0;
  virtual std::string piece(int64_t id) const = 0;
  virtual int64_t vocab_size() const = 0;
  const SpecialIds& special() const { return special_; }
  bool is_special(int64_t id) const;

  // [CLS] pieces [SEP], each "[MASK]" in `text` becoming the mask id.
  std::vector<int64_t> encode(std::string_view text) const;
  // The pieces of `ids` (SentencePiece's "▁" and WordPiece's "##" kept, as the lesson shows).
  std::vector<std::string> pieces(const std::vector<int64_t>& ids) const;

 protected:
  SpecialIds special_;
};

// Our SentencePiece model (base/data/tokenizer.h): its pad, unk, bos and eos serve as [PAD],
// [UNK], [CLS] and [SEP], and [MASK] is one more id after its vocabulary.
class SentencePieces : public Pieces {
 public:
  explicit SentencePieces(Tokenizer tokenizer);
  std::vector<int64_t> encode_text(std::string_view text) const override;
  std::string piece(int64_t id) const override;
  int64_t vocab_size() const override { return tokenizer_.vocab_size() + 1; }
  const Tokenizer& tokenizer() const { return tokenizer_; }

 private:
  Tokenizer tokenizer_;
};

// BERT's uncased WordPiece (bert/wordpiece.h) with the ids of its vocab.txt.
class WordPieces : public Pieces {
 public:
  explicit WordPieces(WordPiece wordpiece);
  std::vector<int64_t> encode_text(std::string_view text) const override;
  std::string piece(int64_t id) const override { return wordpiece_.piece(id); }
  int64_t vocab_size() const override { return wordpiece_.vocab_size(); }

 private:
  WordPiece wordpiece_;
};

}  // namespace atencion::examples::bert
