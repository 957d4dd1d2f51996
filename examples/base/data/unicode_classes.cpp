// examples/base/data/unicode_classes.cpp — see unicode_classes.h.
#include "base/data/unicode_classes.h"

#include <algorithm>
#include <iterator>

namespace atencion::examples::unicode {
namespace {

struct CodePointRange {
  char32_t low, high;  // inclusive
};
struct FoldedCodePoint {
  char32_t code_point;
  const char* utf8;
};
#include "base/data/unicode_tables.inc"

// Whether `c` is in one of the sorted, disjoint `ranges`: the last range starting at or before
// `c` must reach it.
template <size_t N>
bool in_ranges(const CodePointRange (&ranges)[N], char32_t c) {
  const auto* after = std::upper_bound(std::begin(ranges), std::end(ranges), c,
                                       [](char32_t value, const CodePointRange& range) {
                                         return value < range.low;
                                       });
  return after != std::begin(ranges) && c <= (after - 1)->high;
}

}  // namespace

bool is_letter(char32_t c) { return in_ranges(kLetter, c); }
bool is_number(char32_t c) { return in_ranges(kNumber, c); }
bool is_punctuation(char32_t c) { return in_ranges(kPunctuation, c); }
bool is_control(char32_t c) { return in_ranges(kControl, c); }
bool is_space_separator(char32_t c) { return in_ranges(kSpaceSeparator, c); }
bool is_white_space(char32_t c) { return in_ranges(kWhiteSpace, c); }

const char* folded_utf8(char32_t c) {
  const auto* found = std::lower_bound(
      std::begin(kFolded), std::end(kFolded), c,
      [](const FoldedCodePoint& entry, char32_t value) { return entry.code_point < value; });
  return found != std::end(kFolded) && found->code_point == c ? found->utf8 : nullptr;
}

}  // namespace atencion::examples::unicode
