// Tests for examples/base/data/utf8.cpp's escape_for_terminal: what atencion-gpt sample writes to
// a terminal, byte by byte.
#include <catch2/catch.hpp>

#include <string>

#include "base/data/utf8.h"

using namespace atencion::examples;

namespace {
std::string escaped(const std::string& bytes) {
  std::string out;
  CHECK(escape_for_terminal(bytes, /*at_end=*/true, out) == bytes.size());
  return out;
}
}  // namespace

TEST_CASE("escape_for_terminal keeps valid text and writes other bytes escaped (xNN)", "[utf8]") {
  CHECK(escaped("Tom é ñ € 😀") == "Tom é ñ € 😀");
  CHECK(escaped("a\xFF" "b") == "a\\xFFb");
  CHECK(escaped("\x80\xBF") == "\\x80\\xBF");      // continuation bytes with no lead
  CHECK(escaped("\xC0\xAF") == "\\xC0\\xAF");      // an overlong '/'
  CHECK(escaped("\xED\xA0\x80") == "\\xED\\xA0\\x80");  // a surrogate
  CHECK(escaped("\xE2\x82" "A") == "\\xE2\\x82" "A");  // a character cut short by another
  CHECK(escaped("\xE2\x82") == "\\xE2\\x82");      // cut short by the end of the text
}

TEST_CASE("escape_for_terminal writes control characters but newline and tab escaped (xNN)",
          "[utf8]") {
  CHECK(escaped("a\tb\nc") == "a\tb\nc");
  CHECK(escaped("a\rb") == "a\\x0Db");
  CHECK(escaped("\x1B[2J") == "\\x1B[2J");  // a terminal's clear-screen command, shown, not obeyed
  CHECK(escaped(std::string("\x7F\x00", 2)) == "\\x7F\\x00");
}

TEST_CASE("escape_for_terminal holds back a character's first bytes until the rest come",
          "[utf8]") {
  const std::string euro = "\xE2\x82\xAC";
  std::string pending, out;
  for (const char byte : "x" + euro) {  // one byte at a time, as a model of bytes draws them
    pending += byte;
    pending.erase(0, escape_for_terminal(pending, /*at_end=*/false, out));
  }
  CHECK(out == "x" + euro);
  CHECK(pending.empty());
  std::string held;
  INFO("\\xE0 \\x80 can never be a character (overlong): not held back");
  CHECK(escape_for_terminal("\xE0\x80", /*at_end=*/false, held) == 2);
  CHECK(held == "\\xE0\\x80");
  held.clear();
  CHECK(escape_for_terminal("ok\xF0\x9F", /*at_end=*/false, held) == 2);
  CHECK(held == "ok");
}
