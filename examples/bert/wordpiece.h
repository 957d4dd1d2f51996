// examples/bert/wordpiece.h — BERT's uncased WordPiece tokenizer, for a vocab.txt as
// published with bert-base-uncased (one piece a line; a piece's id is its line number from 0).
// Lesson: docs/16-bert.md#wordpiece
//
// Two stages, as BERT's own tokenizer:
//   basic_tokens(text)  clean (control characters dropped, every space a plain space), put
//                       spaces around each CJK ideograph, lower-case and strip accents
//                       ("Él" -> "el"), then split on spaces and around every punctuation
//                       character ("dog's" -> "dog" "'" "s").
//   split_word(word)    greedy longest match first: the longest vocabulary piece that starts
//                       the word, then the longest "##" piece that goes on from there, and so
//                       on ("unaffable" -> "un" "##aff" "##able"); a word that cannot be
//                       spelled this way, or has over 100 characters, is one [UNK].
// The Unicode facts (punctuation, control characters, spaces, lower case and accents) are
// tables made from Python's unicodedata by tools/make_unicode_tables.py
// (base/data/unicode_classes.h).
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace atencion::examples::bert {

class WordPiece {
 public:
  static constexpr size_t kLongestWord = 100;  // characters; longer words become [UNK]

  // A vocab.txt: std::invalid_argument naming the file and the line or byte offset for invalid
  // UTF-8 or a piece listed twice, and naming the missing piece when one of [PAD], [UNK],
  // [CLS], [SEP] and [MASK] is not in it.
  static WordPiece load(const std::string& path);
  static WordPiece from_text(std::string_view text, std::string_view name);

  // The pieces of plain text (no special pieces are recognised in it), without [CLS]/[SEP].
  std::vector<int64_t> encode(std::string_view text) const;
  std::vector<std::string> tokenize(std::string_view text) const;  // the same, as pieces

  std::string piece(int64_t id) const;  // std::out_of_range for an id outside the vocabulary
  int64_t id_of(std::string_view piece) const;  // -1 if absent
  int64_t vocab_size() const { return static_cast<int64_t>(pieces_.size()); }

 private:
  std::vector<std::string> split_word(std::string_view word) const;
  std::vector<std::string> pieces_;
  std::unordered_map<std::string, int64_t> ids_;
};

// The first stage alone (what the vocabulary does not change).
std::vector<std::string> basic_tokens(std::string_view text);

// Greedy longest match first over `word` (UTF-8, already a basic token): the pieces, each
// after the first with "##", or {"[UNK]"}. `in_vocabulary(piece)` says whether a piece exists.
// docs/16-bert.md#wordpiece; exercises/ has it to write yourself.
std::vector<std::string> longest_match_first(
    std::string_view word, const std::function<bool(std::string_view)>& in_vocabulary);

}  // namespace atencion::examples::bert
