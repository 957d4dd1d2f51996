// examples/base/data/unicode_classes.h — the Unicode character classes the tokenizers need:
// one function per class, each a binary search in a table that tools/make_unicode_tables.py
// made from Python's unicodedata (examples/base/data/unicode_tables.inc; its first lines name
// the Unicode version). BERT's WordPiece (docs/16-bert.md#wordpiece) and GPT-2's byte-level BPE
// (docs/15-gpt.md#gpt-2s-tokenizer) both use them, so that no ICU is needed. A letter or digit
// added by a later Unicode version than the tables' (CJK Extension H came in 15.0) counts here
// as an other symbol; tools/make_unicode_tables.py run by a newer Python brings it in.
#pragma once

namespace atencion::examples::unicode {

// General categories.
bool is_letter(char32_t c);           // L*: \p{L}
bool is_number(char32_t c);           // N*: \p{N}
bool is_punctuation(char32_t c);      // P*
bool is_control(char32_t c);          // C* (Cc Cf Cs Co Cn)
bool is_space_separator(char32_t c);  // Zs
// The White_Space property (\s): tab .. carriage return, space, U+0085, the Zs spaces and the
// line and paragraph separators.
bool is_white_space(char32_t c);
// Lower-cased, then NFD, then without combining marks (Mn), in UTF-8: "É" -> "e". Null when
// that leaves `c` as it is. Hangul syllables are not in the table: their NFD is arithmetic.
const char* folded_utf8(char32_t c);

}  // namespace atencion::examples::unicode
