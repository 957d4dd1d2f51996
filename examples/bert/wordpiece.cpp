// examples/bert/wordpiece.cpp — see wordpiece.h. Lesson: docs/16-bert.md#wordpiece
#include "bert/wordpiece.h"

#include <algorithm>
#include <stdexcept>

#include "base/data/unicode_classes.h"
#include "base/data/utf8.h"
#include "base/io/file_checks.h"

namespace atencion::examples::bert {
namespace {

// Unicode's White_Space property, as Hugging Face's BERT tokenizers split: the ASCII spaces,
// the Zs spaces and the line and paragraph separators U+2028 and U+2029 ("hello\u2028world" is
// two words). The controls among them (U+0085) are dropped before this is asked.
bool is_space(char32_t c) { return unicode::is_white_space(c); }
bool is_control(char32_t c) {
  return c != '\t' && c != '\n' && c != '\r' && unicode::is_control(c);
}
// BERT counts every ASCII symbol that is not a letter or digit ("$", "^", "`") as punctuation,
// though Unicode calls some of them symbols.
bool is_punctuation(char32_t c) {
  if ((c >= 33 && c <= 47) || (c >= 58 && c <= 64) || (c >= 91 && c <= 96) ||
      (c >= 123 && c <= 126))
    return true;
  return unicode::is_punctuation(c);
}
// The CJK Unified Ideographs blocks (not Hiragana, Katakana or Hangul, which are spelled with
// pieces as other scripts are).
bool is_cjk_ideograph(char32_t c) {
  return (c >= 0x4E00 && c <= 0x9FFF) || (c >= 0x3400 && c <= 0x4DBF) ||
         (c >= 0x20000 && c <= 0x2A6DF) || (c >= 0x2A700 && c <= 0x2B73F) ||
         (c >= 0x2B740 && c <= 0x2B81F) || (c >= 0x2B820 && c <= 0x2CEAF) ||
         (c >= 0xF900 && c <= 0xFAFF) || (c >= 0x2F800 && c <= 0x2FA1F);
}


// Lower case, then NFD, then without combining marks: "É" -> "e". A Hangul syllable's NFD is
// its two or three jamo, by the arithmetic of the Unicode standard (§3.12).
void append_folded(std::string& out, char32_t c) {
  if (c >= 0xAC00 && c <= 0xD7A3) {
    const char32_t index = c - 0xAC00;
    append_utf8(out, 0x1100 + index / 588);
    append_utf8(out, 0x1161 + (index % 588) / 28);
    if (index % 28 != 0) append_utf8(out, 0x11A7 + index % 28);
    return;
  }
  if (const char* folded = unicode::folded_utf8(c)) out += folded;
  else append_utf8(out, c);
}

std::vector<char32_t> code_points(std::string_view text) {
  std::vector<char32_t> out;
  for (size_t at = 0; at < text.size();) {
    const CodePoint c = decode_utf8(text, at);
    out.push_back(c.value);
    at += c.length;
  }
  return out;
}

}  // namespace

std::vector<std::string> basic_tokens(std::string_view text) {
  // Clean, fold and cut in one pass: a space ends a token, a punctuation character is a token
  // of its own, a CJK ideograph too.
  std::vector<std::string> tokens;
  std::string current;
  auto finish = [&] {
    if (!current.empty()) tokens.push_back(std::move(current));
    current.clear();
  };
  for (const char32_t c : code_points(text)) {
    if (c == 0 || c == 0xFFFD || is_control(c)) continue;
    if (is_space(c)) {
      finish();
      continue;
    }
    std::string folded;
    append_folded(folded, c);
    for (const char32_t f : code_points(folded)) {
      if (is_punctuation(f) || is_cjk_ideograph(f)) {
        finish();
        append_utf8(current, f);
        finish();
      } else {
        append_utf8(current, f);
      }
    }
  }
  finish();
  return tokens;
}

std::vector<std::string> longest_match_first(
    std::string_view word, const std::function<bool(std::string_view)>& in_vocabulary) {
  // Byte offsets of the code points: a piece never cuts one in two.
  std::vector<size_t> starts;
  for (size_t at = 0; at < word.size(); at += decode_utf8(word, at).length) starts.push_back(at);
  if (starts.size() > WordPiece::kLongestWord) return {"[UNK]"};
  starts.push_back(word.size());
  std::vector<std::string> pieces;
  for (size_t begin = 0; begin + 1 < starts.size();) {
    size_t end = starts.size() - 1;  // the longest candidate first
    std::string candidate;
    for (; end > begin; --end) {
      candidate = (begin > 0 ? "##" : "") +
                  std::string(word.substr(starts[begin], starts[end] - starts[begin]));
      if (in_vocabulary(candidate)) break;
    }
    if (end == begin) return {"[UNK]"};  // no piece starts here: the whole word is unknown
    pieces.push_back(std::move(candidate));
    begin = end;
  }
  return pieces;
}

WordPiece WordPiece::load(const std::string& path) {
  return from_text(read_file(path), path);
}

WordPiece WordPiece::from_text(std::string_view text, std::string_view name) {
  if (const auto bad = find_invalid_utf8(text))
    throw std::invalid_argument(std::string(name) + ": invalid UTF-8 at byte " +
                                std::to_string(*bad));
  WordPiece wordpiece;
  size_t line_start = 0;
  while (line_start < text.size()) {
    size_t line_end = text.find('\n', line_start);
    if (line_end == std::string_view::npos) line_end = text.size();
    std::string piece(text.substr(line_start, line_end - line_start));
    if (!piece.empty() && piece.back() == '\r') piece.pop_back();
    const int64_t id = wordpiece.vocab_size();
    if (!wordpiece.ids_.emplace(piece, id).second)
      throw std::invalid_argument(std::string(name) + ": line " + std::to_string(id + 1) +
                                  ": the piece '" + piece + "' is listed twice");
    wordpiece.pieces_.push_back(std::move(piece));
    line_start = line_end + 1;
  }
  for (const char* special : {"[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]"})
    if (wordpiece.id_of(special) < 0)
      throw std::invalid_argument(std::string(name) + ": no " + special +
                                  " piece (a BERT vocabulary has [PAD], [UNK], [CLS], [SEP] "
                                  "and [MASK])");
  return wordpiece;
}

std::vector<std::string> WordPiece::split_word(std::string_view word) const {
  return longest_match_first(word, [this](std::string_view piece) {
    return ids_.find(std::string(piece)) != ids_.end();
  });
}

std::vector<std::string> WordPiece::tokenize(std::string_view text) const {
  std::vector<std::string> pieces;
  for (const std::string& word : basic_tokens(text))
    for (std::string& piece : split_word(word)) pieces.push_back(std::move(piece));
  return pieces;
}

std::vector<int64_t> WordPiece::encode(std::string_view text) const {
  std::vector<int64_t> ids;
  for (const std::string& piece : tokenize(text)) ids.push_back(id_of(piece));
  return ids;
}

std::string WordPiece::piece(int64_t id) const {
  if (id < 0 || id >= vocab_size())
    throw std::out_of_range("WordPiece: id " + std::to_string(id) + " is not in [0, " +
                            std::to_string(vocab_size()) + ")");
  return pieces_[static_cast<size_t>(id)];
}

int64_t WordPiece::id_of(std::string_view piece) const {
  const auto found = ids_.find(std::string(piece));
  return found == ids_.end() ? -1 : found->second;
}

}  // namespace atencion::examples::bert
