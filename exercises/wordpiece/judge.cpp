// exercises/wordpiece/judge.cpp — judges exercise::wordpiece.
// Lesson: docs/16-bert.md#wordpiece
#include <catch2/catch.hpp>

#include <fstream>

#include "bert/wordpiece.h"
#include "exercises/wordpiece/wordpiece.h"
#include "nlohmann/json.hpp"

using namespace atencion;
using Pieces = std::vector<std::string>;

namespace {

const std::set<std::string> kSmall{"un", "unaff", "##aff", "##able", "a", "##a", "##b", "##é", "caf"};

}  // namespace

TEST_CASE("wordpiece: the longest piece first", "[exercise]") {
  CHECK(exercise::wordpiece("unaffable", kSmall) == Pieces{"unaff", "##able"});
  CHECK(exercise::wordpiece("un", kSmall) == Pieces{"un"});
  CHECK(exercise::wordpiece("aab", kSmall) == Pieces{"a", "##a", "##b"});
}

TEST_CASE("wordpiece: one spot no piece spells makes the whole word UNK", "[exercise]") {
  CHECK(exercise::wordpiece("aac", kSmall) == Pieces{"[UNK]"});
  CHECK(exercise::wordpiece("b", kSmall) == Pieces{"[UNK]"});  // "##b" cannot start a word
}

TEST_CASE("wordpiece: over 100 characters is UNK, counting characters, not bytes", "[exercise]") {
  CHECK(exercise::wordpiece(std::string(101, 'a'), kSmall) == Pieces{"[UNK]"});
  CHECK(exercise::wordpiece(std::string(100, 'a'), kSmall).size() == 100);
  std::string accented;  // 60 characters, 120 bytes: "éé…" after "caf"
  for (int i = 0; i < 60; ++i) accented += "é";
  CHECK(exercise::wordpiece("caf" + accented, kSmall).size() == 61);
}

TEST_CASE("wordpiece: the words of 442 strings split as BERT's tokenizer splits them", "[exercise]") {
  const std::string fixture = ATENCION_FIXTURES_DIR "/bert-tiny";
  std::set<std::string> vocabulary;
  std::ifstream vocab_file(fixture + "/vocab.txt");
  for (std::string piece; std::getline(vocab_file, piece);) vocabulary.insert(piece);
  std::ifstream cases(fixture + "/wordpiece_expected.jsonl");
  int words = 0;
  for (std::string line; std::getline(cases, line);) {
    for (const std::string& word : examples::bert::basic_tokens(nlohmann::json::parse(line).at("text").get<std::string>())) {
      INFO("word: " << word);
      const Pieces expected = examples::bert::longest_match_first(
          word, [&](std::string_view piece) { return vocabulary.count(std::string(piece)) > 0; });
      CHECK(exercise::wordpiece(word, vocabulary) == expected);
      ++words;
    }
  }
  CHECK(words > 1000);
}
