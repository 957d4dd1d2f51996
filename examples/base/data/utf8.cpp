// examples/base/data/utf8.cpp — see utf8.h.
#include "base/data/utf8.h"

namespace atencion::examples {

namespace {

bool is_continuation(unsigned char byte) { return (byte & 0xC0) == 0x80; }

// Length of the valid code point at `offset`, or 0 if the bytes there are not one.
size_t valid_length_at(std::string_view text, size_t offset) {
  const auto byte = [&](size_t i) { return static_cast<unsigned char>(text[offset + i]); };
  const unsigned char lead = byte(0);
  size_t length = 0;
  char32_t value = 0;
  char32_t smallest = 0;  // the shortest-form rule: below this the sequence is overlong
  if (lead < 0x80) return 1;
  if ((lead & 0xE0) == 0xC0) { length = 2; value = lead & 0x1F; smallest = 0x80; }
  else if ((lead & 0xF0) == 0xE0) { length = 3; value = lead & 0x0F; smallest = 0x800; }
  else if ((lead & 0xF8) == 0xF0) { length = 4; value = lead & 0x07; smallest = 0x10000; }
  else return 0;  // a continuation byte or 0xF8..0xFF cannot start a code point
  if (offset + length > text.size()) return 0;
  for (size_t i = 1; i < length; ++i) {
    if (!is_continuation(byte(i))) return 0;
    value = (value << 6) | (byte(i) & 0x3F);
  }
  if (value < smallest || value > 0x10FFFF || (value >= 0xD800 && value <= 0xDFFF)) return 0;
  return length;
}

// Whether the bytes from `offset` to the end are the start of a valid code point cut short:
// some continuation makes it valid (tried with the second bytes that the range rules allow).
bool is_cut_short(std::string_view text, size_t offset) {
  const auto lead = static_cast<unsigned char>(text[offset]);
  const size_t length = lead >= 0xF0 ? 4 : lead >= 0xE0 ? 3 : lead >= 0xC0 ? 2 : 1;
  const size_t have = text.size() - offset;
  if (length == 1 || have >= length) return false;
  for (const char second : {'\x80', '\x90', '\xA0', '\xBF'}) {
    std::string whole(text.substr(offset));
    if (have == 1) whole += second;
    whole.append(length - whole.size(), '\x80');
    if (valid_length_at(whole, 0) == length) return true;
  }
  return false;
}

}  // namespace

size_t escape_for_terminal(std::string_view bytes, bool at_end, std::string& out) {
  static constexpr char kHex[] = "0123456789ABCDEF";
  size_t offset = 0;
  while (offset < bytes.size()) {
    const size_t length = valid_length_at(bytes, offset);
    const auto first = static_cast<unsigned char>(bytes[offset]);
    const bool control = (first < 0x20 && first != '\n' && first != '\t') || first == 0x7F;
    if (length > 0 && !control) {
      out.append(bytes.substr(offset, length));
      offset += length;
      continue;
    }
    if (!at_end && is_cut_short(bytes, offset)) break;  // the rest may still come
    const auto byte = static_cast<unsigned char>(bytes[offset++]);
    out += "\\x";
    out += kHex[byte >> 4];
    out += kHex[byte & 0xF];
  }
  return offset;
}

std::optional<size_t> find_invalid_utf8(std::string_view text) {
  size_t offset = 0;
  while (offset < text.size()) {
    const size_t length = valid_length_at(text, offset);
    if (length == 0) return offset;
    offset += length;
  }
  return std::nullopt;
}

CodePoint decode_utf8(std::string_view text, size_t offset) {
  const size_t length = valid_length_at(text, offset);
  const auto lead = static_cast<unsigned char>(text[offset]);
  if (length <= 1) return {static_cast<char32_t>(lead), 1};
  char32_t value = lead & (length == 2 ? 0x1F : length == 3 ? 0x0F : 0x07);
  for (size_t i = 1; i < length; ++i)
    value = (value << 6) | (static_cast<unsigned char>(text[offset + i]) & 0x3F);
  return {value, length};
}

void append_utf8(std::string& out, char32_t c) {
  if (c < 0x80) {
    out += static_cast<char>(c);
  } else if (c < 0x800) {
    out += static_cast<char>(0xC0 | (c >> 6));
    out += static_cast<char>(0x80 | (c & 0x3F));
  } else if (c < 0x10000) {
    out += static_cast<char>(0xE0 | (c >> 12));
    out += static_cast<char>(0x80 | ((c >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (c & 0x3F));
  } else {
    out += static_cast<char>(0xF0 | (c >> 18));
    out += static_cast<char>(0x80 | ((c >> 12) & 0x3F));
    out += static_cast<char>(0x80 | ((c >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (c & 0x3F));
  }
}

bool is_unicode_space(char32_t c) {
  return (c >= 0x09 && c <= 0x0D) || (c >= 0x1C && c <= 0x20) || c == 0x85 || c == 0xA0 ||
         c == 0x1680 || (c >= 0x2000 && c <= 0x200A) || c == 0x2028 || c == 0x2029 ||
         c == 0x202F || c == 0x205F || c == 0x3000;
}

}  // namespace atencion::examples
