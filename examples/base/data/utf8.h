// examples/base/data/utf8.h — checking and walking UTF-8 text, one code point at a time.
// Lesson: docs/12-translation.md#tokens
//
// A code point takes 1 to 4 bytes: 0xxxxxxx, 110xxxxx 10xxxxxx, 1110xxxx 10xxxxxx 10xxxxxx,
// 11110xxx 10xxxxxx 10xxxxxx 10xxxxxx. A valid sequence uses the shortest form, encodes no
// surrogate (U+D800..U+DFFF) and stays at or below U+10FFFF.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace atencion::examples {

// Byte offset of the first byte that does not start a valid code point, or nothing if all of
// `text` is valid UTF-8.
std::optional<size_t> find_invalid_utf8(std::string_view text);

// The code point that starts at `text[offset]` and how many bytes it takes. An invalid byte
// decodes as itself (U+0080..U+00FF) with length 1, so walking never gets stuck.
struct CodePoint {
  char32_t value;
  size_t length;
};
CodePoint decode_utf8(std::string_view text, size_t offset);

// For a terminal, which shows a byte that is not UTF-8 as a replacement mark and obeys control
// characters (a carriage return rewrites the line, an escape starts a command): appends to `out`
// the valid code points of `bytes` as they are, and as the four characters \xNN (hex) each byte
// that does not start one and each control character but newline and tab (U+0000..U+001F,
// U+007F). An incomplete code point at the end is held back, unless `at_end`: the return value is
// how many bytes were used, so that a caller printing bytes as they arrive (atencion-gpt sample,
// one byte a token) keeps the rest for next time.
size_t escape_for_terminal(std::string_view bytes, bool at_end, std::string& out);

// Appends code point `c` (at most U+10FFFF) to `out` in its shortest UTF-8 form.
void append_utf8(std::string& out, char32_t c);

// Whitespace as Python's str.split() sees it (str.isspace): ASCII \t \n \v \f \r, the
// separators U+001C..U+001F, space, U+0085, U+00A0, U+1680, U+2000..U+200A, U+2028, U+2029,
// U+202F, U+205F and U+3000. sacreBLEU splits tokens with it.
bool is_unicode_space(char32_t code_point);

}  // namespace atencion::examples
