// examples/gpt/gpt2_bpe.h — GPT-2's tokenizer: byte-level byte-pair encoding.
// Lesson: docs/15-gpt.md#gpt-2s-tokenizer
//
// Three steps, each a function here:
// 1. Pre-tokenize (pretokenize): cut the text into words with GPT-2's pattern
//      's|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+
//    (contractions; a run of letters, of digits or of other symbols with at most one space in
//    front; whitespace, leaving its last space to the word after it). No merge crosses words.
// 2. Bytes → symbols (byte_to_symbol): each byte of a word becomes one printable character, so
//    that the vocabulary files are text: the printable bytes ! .. ~, ¡ .. ¬, ® .. ÿ stand for
//    themselves, the other 68 (controls, space, ...) for U+0100 onwards in byte order. A space
//    is "Ġ" (U+0120).
// 3. Merge by rank (encode_word): while two neighbouring symbols form a pair listed in the merges
//    file, merge the pair listed earliest (lowest rank) everywhere in the word; then each symbol
//    is an id of the vocabulary.
// Files: vocab.json (symbol string → id) and merges.txt ("a b" per line, rank = line order,
// after a "#version" line), or the same data as encoder.json and vocab.bpe (OpenAI's names).
// Letters and digits (\p{L}, \p{N}) and whitespace (\s: Unicode's White_Space) are the tables of
// base/data/unicode_classes.h, which BERT's WordPiece uses too.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace atencion::examples::gpt {

class Gpt2Bpe {
 public:
  // `vocab_json` and `merges` are the files' contents; `names` stands for them in errors.
  // Throws std::runtime_error naming the file and line of a bad entry.
  static Gpt2Bpe parse(std::string_view vocab_json, std::string_view merges,
                       const std::string& vocab_name, const std::string& merges_name);
  // The tokenizer in `dir`: vocab.json + merges.txt, or encoder.json + vocab.bpe.
  static Gpt2Bpe load(const std::string& dir);

  // Valid UTF-8 in (TextTokenizer checks), ids out. Throws std::runtime_error when a symbol the
  // merges make is not in the vocabulary (files that do not belong together).
  std::vector<int64_t> encode(std::string_view text) const;
  // Ids → the bytes they stand for (not necessarily whole UTF-8 characters: a character can be
  // split across ids). Throws std::invalid_argument for an id outside the vocabulary.
  std::string decode(const std::vector<int64_t>& ids) const;
  int64_t vocab_size() const { return static_cast<int64_t>(symbols_.size()); }
  // The file the vocabulary was read from ("<dir>/vocab.json" or "<dir>/encoder.json"), for
  // messages.
  const std::string& vocab_file() const { return vocab_file_; }
  // The two files' contents as read: what a checkpoint of a run from GPT-2's weights keeps
  // (as vocab.json and merges.txt), for parse() to read back.
  const std::string& vocab_json() const { return vocab_json_; }
  const std::string& merges() const { return merges_; }
  // The id of "<|endoftext|>" (50256 in GPT-2's files), or of "\n" in files without it.
  int64_t end_of_text_id() const;

  // Step 1: the words of `text` (valid UTF-8), in order; their concatenation is `text`.
  static std::vector<std::string_view> pretokenize(std::string_view text);
  // Step 2: the printable character (UTF-8) that stands for `byte`.
  static std::string byte_to_symbol(unsigned char byte);
  // Step 3: one word's symbols after every merge the ranks allow.
  std::vector<std::string> encode_word(std::string_view word) const;

 private:
  std::unordered_map<std::string, int64_t> ids_;    // symbol string -> id
  std::vector<std::string> symbols_;                // id -> symbol string
  std::map<std::pair<std::string, std::string>, int64_t> ranks_;  // merge pair -> rank
  std::unordered_map<std::string, unsigned char> bytes_of_symbol_;  // "Ġ" -> ' '
  std::string vocab_file_;
  std::string vocab_json_, merges_;
};

}  // namespace atencion::examples::gpt
