// examples/base/data/tokenizer.h — subword tokens: SentencePiece, trained on our training split.
// Lesson: docs/12-translation.md#tokens
//
// A word-level vocabulary of 8k would map every rarer word to <unk>; characters would make
// sequences five times longer. Subwords sit in between: frequent words are one piece
// ("▁nombre"), rare ones are spelled with a few ("▁des" "pert" "ó"). SentencePiece's
// unigram model (Kudo, 2018) learns the pieces from raw text, with "▁" standing for the
// space before a word, so decoding is just joining the pieces and turning "▁" into spaces.
//
// One tokenizer per language: Spanish and English share few pieces, the model has separate
// source and target embeddings, and the decoder's softmax then runs over English pieces only.
//
// Special ids, the same in every model we train: pad = 0, unk = 1, bos = 2, eos = 3.
// ¿ and ¡ are punctuation: SentencePiece never lets a piece cross from one Unicode script to
// another (split_by_unicode_script), and ¿ ¡ ? ! belong to no script of their own, so
// "¿Cuál" becomes "▁¿" "Cuál" (tests/examples/base/data/test_tokenizer.cpp checks this).
// Training is deterministic: a fixed count of 2 threads whatever the machine (SentencePiece's
// sums depend on the thread count, not on timing), all sentences (no sampling) and a fixed
// seed; two trainings give byte-identical models.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace sentencepiece {
class SentencePieceProcessor;
}

namespace atencion::examples {

struct TokenizerOptions {
  int64_t vocab_size = 8000;  // an upper bound: a small corpus may give fewer pieces
  uint32_t seed = 1;
};

class Tokenizer {
 public:
  static constexpr int64_t pad_id = 0;
  static constexpr int64_t unk_id = 1;
  static constexpr int64_t bos_id = 2;  // <s>, starts the decoder input
  static constexpr int64_t eos_id = 3;  // </s>, ends the decoder output

  // Learns a vocabulary from `sentences` (raw text, one sentence each). Takes about 3.5 s of
  // CPU time for the 104k short sentences of one side of the default training split.
  static Tokenizer train(const std::vector<std::string>& sentences,
                         const TokenizerOptions& options = {});
  // A SentencePiece model file (the bytes of serialized()); its vocabulary is inside it.
  static Tokenizer load(const std::string& path);
  // The same bytes as the model file, e.g. read from a checkpoint (which writes serialized()).
  static Tokenizer from_serialized(std::string model_bytes);

  const std::string& serialized() const { return model_bytes_; }

  // Text -> ids, without bos or eos.
  std::vector<int64_t> encode(std::string_view text) const;
  // Ids -> text; pad, bos and eos are dropped, unk becomes " ⁇ ".
  std::string decode(const std::vector<int64_t>& ids) const;
  // The pieces of `text`, e.g. to label the axes of an attention heat map.
  std::vector<std::string> pieces(std::string_view text) const;
  std::string piece(int64_t id) const;
  int64_t vocab_size() const;

 private:
  explicit Tokenizer(std::string model_bytes);
  std::string model_bytes_;
  std::shared_ptr<const sentencepiece::SentencePieceProcessor> processor_;
};

}  // namespace atencion::examples
