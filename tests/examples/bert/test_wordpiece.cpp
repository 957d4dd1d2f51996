// Tests for examples/bert/wordpiece.cpp: BERT's uncased WordPiece against Hugging Face's own
// JavaScript implementation on 442 strings (tests/fixtures/bert-tiny/wordpiece_expected.jsonl,
// made by tools/make_wordpiece_expected.mjs with the fixture's vocab.txt), and its rules one by one.
#include <catch2/catch.hpp>

#include <fstream>
#include <set>
#include <string>
#include <vector>

#include "bert/wordpiece.h"
#include "nlohmann/json.hpp"

using namespace atencion::examples::bert;
using Catch::Matchers::Contains;

namespace {

const std::string kFixture = ATENCION_FIXTURES_DIR "/bert-tiny";

const WordPiece& fixture_vocabulary() {
  static const WordPiece wordpiece = WordPiece::load(kFixture + "/vocab.txt");
  return wordpiece;
}

std::string joined(const std::vector<std::string>& pieces) {
  std::string out;
  for (const auto& piece : pieces) out += (out.empty() ? "" : " ") + piece;
  return out;
}

}  // namespace

TEST_CASE("wordpiece: the pieces of Hugging Face's JavaScript tokenizer on 442 strings") {
  std::ifstream in(kFixture + "/wordpiece_expected.jsonl");
  int checked = 0;
  for (std::string line; std::getline(in, line); ++checked) {
    const auto expected = nlohmann::json::parse(line);
    const std::string text = expected.at("text").get<std::string>();
    INFO("text: " << nlohmann::json(text).dump());
    CHECK(joined(fixture_vocabulary().tokenize(text)) ==
          joined(expected.at("pieces").get<std::vector<std::string>>()));
  }
  CHECK(checked == 442);
}

TEST_CASE("wordpiece: greedy longest match first, ## after the first piece, UNK for the rest") {
  const std::set<std::string> vocabulary{"un", "##aff", "##able", "unaff", "a", "##a", "##b"};
  auto in_vocabulary = [&](std::string_view piece) {
    return vocabulary.count(std::string(piece)) > 0;
  };
  // "unaff" is longer than "un": taken first, then "##able".
  CHECK(longest_match_first("unaffable", in_vocabulary) == std::vector<std::string>{"unaff", "##able"});
  CHECK(longest_match_first("aab", in_vocabulary) == std::vector<std::string>{"a", "##a", "##b"});
  // One letter that no piece spells makes the whole word unknown, not just that letter.
  CHECK(longest_match_first("aac", in_vocabulary) == std::vector<std::string>{"[UNK]"});
  CHECK(longest_match_first(std::string(101, 'a'), in_vocabulary) ==
        std::vector<std::string>{"[UNK]"});
  CHECK(longest_match_first(std::string(100, 'a'), in_vocabulary).size() == 100);
}

TEST_CASE("wordpiece: the basic tokenizer lower-cases, strips accents and splits punctuation and CJK") {
  CHECK(basic_tokens("Él comió, ¿no?") == std::vector<std::string>{"el", "comio", ",", "¿", "no", "?"});
  CHECK(basic_tokens("日本語abc") == std::vector<std::string>{"日", "本", "語", "abc"});
  CHECK(basic_tokens("a\u00adb\u0007c") == std::vector<std::string>{"abc"});  // Cf and Cc dropped
  CHECK(basic_tokens("한국") == std::vector<std::string>{"\u1112\u1161\u11ab\u1100\u116e\u11a8"});
}

TEST_CASE("wordpiece: a vocabulary without a special piece, or with a piece twice, is refused") {
  CHECK_THROWS_WITH(WordPiece::from_text("[PAD]\n[UNK]\n[CLS]\n[MASK]\nthe\n", "v.txt"),
                    Contains("v.txt: no [SEP] piece"));
  CHECK_THROWS_WITH(WordPiece::from_text("[PAD]\n[UNK]\n[CLS]\n[SEP]\n[MASK]\nthe\nthe\n", "v.txt"),
                    Contains("v.txt: line 7: the piece 'the' is listed twice"));
  CHECK_THROWS_WITH(WordPiece::from_text("[PAD]\n\xff\n", "v.txt"), Contains("invalid UTF-8 at byte 6"));
  const WordPiece small = WordPiece::from_text("[PAD]\r\n[UNK]\r\n[CLS]\r\n[SEP]\r\n[MASK]\r\nhi\r\n", "v");
  CHECK(small.encode("Hi HI hello") == std::vector<int64_t>{5, 5, 1});
}

TEST_CASE("wordpiece: every White_Space character splits words, the line and paragraph "
          "separators too") {
  // Hugging Face's BERT tokenizers (the Rust normalizer and pre-tokenizer) split on Unicode's
  // White_Space property: U+2028 and U+2029 are spaces (Zl, Zp), not part of a word.
  CHECK(basic_tokens("hello\u2028world") == std::vector<std::string>{"hello", "world"});
  CHECK(basic_tokens("hello\u2029world") == std::vector<std::string>{"hello", "world"});
  CHECK(basic_tokens("a\u3000b\u00a0c") == std::vector<std::string>{"a", "b", "c"});  // Zs
  // U+0085 is a control character (Cc) before it is a space: dropped, as Hugging Face's
  // normalizer drops it.
  CHECK(basic_tokens("a\u0085b") == std::vector<std::string>{"ab"});
  CHECK(joined(fixture_vocabulary().tokenize("hello\u2028world")) ==
        joined(fixture_vocabulary().tokenize("hello world")));
}
