// Tests for examples/base/data/unicode_classes.cpp: each class on code points whose category or
// White_Space membership the Unicode standard fixes, at the edges of its ranges.
#include <catch2/catch.hpp>

#include <string>

#include "base/data/unicode_classes.h"

using namespace atencion::examples::unicode;

TEST_CASE("unicode classes: letters and numbers are categories L and N", "[unicode]") {
  for (char32_t c : {U'a', U'Z', U'é', U'ß', U'Ω', U'ж', U'日', U'ア', U'한', U'ʰ', U'𝐀'})
    CHECK(is_letter(c));
  for (char32_t c : {U'0', U'9', U'²', U'½', U'٣', U'Ⅻ', U'①', U'𝟘'}) CHECK(is_number(c));
  for (char32_t c : {U' ', U'-', U'\'', U'@', U'`', U'\u0301', U'©', U'🙂', U'\n', U'\0'}) {
    CHECK_FALSE(is_letter(c));
    CHECK_FALSE(is_number(c));
  }
  CHECK_FALSE(is_letter(U'0'));
  CHECK_FALSE(is_number(U'a'));
  CHECK_FALSE(is_letter(0x10FFFF));  // a noncharacter
}

TEST_CASE("unicode classes: White_Space is not the same as the space separators Zs",
          "[unicode]") {
  for (char32_t c : {U'\t', U'\n', U'\v', U'\f', U'\r', U' ', U'\u0085', U'\u00A0', U'\u1680',
                     U'\u2000', U'\u200A', U'\u2028', U'\u2029', U'\u202F', U'\u205F', U'\u3000'})
    CHECK(is_white_space(c));
  // Zero-width space, the BOM, the file and unit separators and the Mongolian vowel separator are
  // not White_Space.
  for (char32_t c : {U'\u200B', U'\uFEFF', U'\x1C', U'\x1F', U'\u180E', U'a', U'\x08'})
    CHECK_FALSE(is_white_space(c));
  CHECK(is_space_separator(U' '));
  CHECK(is_space_separator(U'\u3000'));
  CHECK_FALSE(is_space_separator(U'\n'));
  CHECK_FALSE(is_space_separator(U'\u2028'));  // category Zl
}

TEST_CASE("unicode classes: punctuation, controls and folding", "[unicode]") {
  for (char32_t c : {U'!', U'\'', U'¿', U'—', U'、', U'«'}) CHECK(is_punctuation(c));
  for (char32_t c : {U'$', U'+', U'a', U'^'}) CHECK_FALSE(is_punctuation(c));  // $ + ^ are S*
  for (char32_t c : {U'\0', U'\t', U'\x7F', U'\u200B', U'\uE000'}) CHECK(is_control(c));
  CHECK_FALSE(is_control(U'a'));
  CHECK(std::string(folded_utf8(U'É')) == "e");
  CHECK(std::string(folded_utf8(U'A')) == "a");
  CHECK(folded_utf8(U'a') == nullptr);
  CHECK(folded_utf8(U'한') == nullptr);  // Hangul: left to the caller's arithmetic
}
