// Tests for examples/base/data/tsv.cpp and utf8.cpp: reading spanish<TAB>english pairs.
#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>
#include <stdexcept>
#include <string>

#include "base/data/tsv.h"
#include "base/data/utf8.h"

using namespace atencion::examples;

using Catch::Matchers::Contains;

TEST_CASE("parse_pairs reads spanish<TAB>english lines in order", "[translate][tsv]") {
  const auto pairs = parse_pairs("¿Cuál es tu nombre?\tWhat is your name?\nHola.\tHello.\n",
                                 "mine.tsv");
  REQUIRE(pairs.size() == 2);
  CHECK(pairs[0].source == "¿Cuál es tu nombre?");
  CHECK(pairs[0].target == "What is your name?");
  CHECK(pairs[1].source == "Hola.");
  CHECK(pairs[1].target == "Hello.");
}

TEST_CASE("parse_pairs accepts a BOM, CRLF, a missing final newline, blank lines, spaces",
          "[translate][tsv]") {
  const auto pairs =
      parse_pairs("\xEF\xBB\xBFHola.\tHello.\r\n\r\n  Adiós. \t Bye.  \nSí.\tYes.", "x.tsv");
  REQUIRE(pairs.size() == 3);
  CHECK(pairs[0].source == "Hola.");
  CHECK(pairs[0].target == "Hello.");
  CHECK(pairs[1].source == "Adiós.");
  CHECK(pairs[1].target == "Bye.");
  CHECK(pairs[2].source == "Sí.");
  CHECK(pairs[2].target == "Yes.");
}

TEST_CASE("parse_pairs names the file, the line and the byte of a bad line",
          "[translate][tsv]") {
  // Line 2 starts at byte 13: "Hola.\tHello.\n" takes bytes 0 to 12.
  CHECK_THROWS_AS(parse_pairs("Hola.\tHello.\nno tab here\n", "a.tsv"), std::invalid_argument);
  CHECK_THROWS_WITH(parse_pairs("Hola.\tHello.\nno tab here\n", "a.tsv"),
                    Contains("a.tsv:2 (byte 13)") && Contains("no tab"));
  CHECK_THROWS_WITH(parse_pairs("Hola.\tHello.\tHi.\n", "a.tsv"),
                    Contains("a.tsv:1 (byte 12)") && Contains("more than one tab"));
  CHECK_THROWS_WITH(parse_pairs("Hola.\tHello.\n \tHello.\n", "a.tsv"),
                    Contains("a.tsv:2 (byte 13)") && Contains("empty Spanish"));
  CHECK_THROWS_WITH(parse_pairs("Hola.\t\n", "a.tsv"),
                    Contains("a.tsv:1 (byte 0)") && Contains("empty English"));
  CHECK_THROWS_WITH(parse_pairs("\n\n", "a.tsv"), Contains("a.tsv: no sentence pairs"));
}

TEST_CASE("parse_pairs points at the first byte of invalid UTF-8", "[translate][tsv]") {
  // "Adi\xF3s" is Latin-1 ó: 0xF3 starts a 4-byte sequence, and 's' is no continuation.
  CHECK_THROWS_WITH(parse_pairs("Hola.\tHello.\nAdi\xF3s.\tBye.\n", "latin1.tsv"),
                    Contains("latin1.tsv:2 (byte 16)") && Contains("invalid UTF-8"));
}

TEST_CASE("find_invalid_utf8 accepts every valid form and refuses the others",
          "[translate][utf8]") {
  CHECK_FALSE(find_invalid_utf8("plain ASCII").has_value());
  CHECK_FALSE(find_invalid_utf8("¿ñ? €  \xF0\x9F\x98\x80").has_value());  // 2, 3, 4 bytes
  CHECK(find_invalid_utf8("ab\x80") == 2u);              // a lone continuation byte
  CHECK(find_invalid_utf8("ab\xC3") == 2u);              // cut short at the end
  CHECK(find_invalid_utf8("\xC0\xAF") == 0u);            // overlong '/'
  CHECK(find_invalid_utf8("x\xED\xA0\x80") == 1u);       // the surrogate U+D800
  CHECK(find_invalid_utf8("\xF4\x90\x80\x80") == 0u);    // U+110000, past the last
  CHECK(find_invalid_utf8("\xFF") == 0u);
}

TEST_CASE("decode_utf8 gives the code point and its length", "[translate][utf8]") {
  const std::string text = "¿a€";
  const CodePoint question = decode_utf8(text, 0);
  CHECK(question.value == U'¿');
  CHECK(question.length == 2);
  CHECK(decode_utf8(text, 2).value == U'a');
  CHECK(decode_utf8(text, 3).value == U'€');
  CHECK(decode_utf8(text, 3).length == 3);
  CHECK(decode_utf8("\xFF", 0).value == 0xFF);  // an invalid byte stands for itself
}

TEST_CASE("read_pairs reads a file and names a missing one", "[translate][tsv]") {
  const auto path = std::filesystem::temp_directory_path() / "atencion_test_tsv.tsv";
  {
    std::ofstream file(path, std::ios::binary);
    file << "Gracias.\tThank you.\nsin tabulador\n";
  }
  CHECK_THROWS_WITH(read_pairs(path.string()),
                    Contains(path.string() + ":2 (byte 20)") && Contains("no tab"));
  {
    std::ofstream file(path, std::ios::binary);
    file << "Gracias.\tThank you.\n";
  }
  const auto pairs = read_pairs(path.string());
  REQUIRE(pairs.size() == 1);
  CHECK(pairs[0].target == "Thank you.");
  std::filesystem::remove(path);
  CHECK_THROWS_WITH(read_pairs(path.string()),
                    Contains("cannot open") && Contains("atencion_test_tsv.tsv"));
  // A directory opens as a stream on Linux and reads as nothing: say what it is instead.
  const std::string directory = std::filesystem::temp_directory_path().string();
  CHECK_THROWS_WITH(read_pairs(directory),
                    Contains("read_pairs: '" + directory + "' is a directory, not a pairs file"));
}

TEST_CASE("the shipped data reads whole: 117,451 pairs, as its README says",
          "[translate][tsv]") {
  const auto pairs = read_pairs(ATENCION_TRANSLATE_DATA_DIR "/spa-eng.tsv");
  REQUIRE(pairs.size() == 117451);
  CHECK(pairs.front().source == "Ve.");
  CHECK(pairs.front().target == "Go.");
}
