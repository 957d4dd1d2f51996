#!/usr/bin/python3
"""Writes examples/base/data/unicode_tables.inc: the Unicode facts the tokenizers need, from
Python's unicodedata, so that the C++ needs no ICU. examples/base/data/unicode_classes.cpp includes
it and gives one lookup function per table. BERT's basic tokenizer (docs/16-bert.md#wordpiece):

  punctuation   category P*                      (BERT also counts every non-alphanumeric ASCII
                                                  symbol, which the C++ checks itself)
  control       category C* (Cc Cf Cs Co Cn)      removed, except tab, newline and return
  space         category Zs                      (tab, newline and return are checked in C++)
  folded        lower-casing, then NFD, then every combining mark (Mn) dropped: "É" -> "e";
                Hangul syllables are left to the C++ (their NFD is arithmetic)

GPT-2's pre-tokenizing pattern (docs/15-gpt.md#gpt-2s-tokenizer):

  letter        category L*                      (\p{L})
  number        category N*                      (\p{N})
  white_space   the White_Space property         (\s); unicodedata lacks it, so its code points
                                                  are listed below from PropList.txt, unchanged
                                                  since Unicode 6.3

Run:  /usr/bin/python3 tools/make_unicode_tables.py > examples/base/data/unicode_tables.inc
"""
import sys
import unicodedata

LAST = 0x10FFFF
# PropList.txt's White_Space: tab .. carriage return, space, next line, no-break space, ogham
# space mark, the en quad .. hair space, line and paragraph separators, the narrow no-break,
# medium mathematical and ideographic spaces.
WHITE_SPACE = [(0x9, 0xD), (0x20, 0x20), (0x85, 0x85), (0xA0, 0xA0), (0x1680, 0x1680),
               (0x2000, 0x200A), (0x2028, 0x2029), (0x202F, 0x202F), (0x205F, 0x205F),
               (0x3000, 0x3000)]


def ranges(predicate):
    out, start = [], None
    for cp in range(LAST + 2):
        inside = cp <= LAST and predicate(cp)
        if inside and start is None:
            start = cp
        elif not inside and start is not None:
            out.append((start, cp - 1))
            start = None
    return out


def category(cp):
    return unicodedata.category(chr(cp))


def is_hangul_syllable(cp):
    return 0xAC00 <= cp <= 0xD7A3


def folded(cp):
    text = unicodedata.normalize("NFD", chr(cp).lower())
    return "".join(c for c in text if unicodedata.category(c) != "Mn")


def write_ranges(name, pairs):
    print(f"constexpr CodePointRange {name}[] = {{")
    line = " "
    for low, high in pairs:
        item = f" {{0x{low:X}, 0x{high:X}}},"
        if len(line) + len(item) > 98:
            print(line)
            line = " "
        line += item
    print(line)
    print("};")


def c_string(text):
    return '"' + "".join(f"\\x{b:02x}" for b in text.encode("utf-8")) + '"'


def main():
    print("// examples/base/data/unicode_tables.inc — made by tools/make_unicode_tables.py from")
    print(f"// Python's unicodedata (Unicode {unicodedata.unidata_version}); do not edit by hand.")
    print("// Included by examples/base/data/unicode_classes.cpp.")
    write_ranges("kPunctuation", ranges(lambda cp: category(cp).startswith("P")))
    write_ranges("kControl", ranges(lambda cp: category(cp).startswith("C")))
    write_ranges("kSpaceSeparator", ranges(lambda cp: category(cp) == "Zs"))
    write_ranges("kLetter", ranges(lambda cp: category(cp).startswith("L")))
    write_ranges("kNumber", ranges(lambda cp: category(cp).startswith("N")))
    write_ranges("kWhiteSpace", WHITE_SPACE)
    print("// {code point, its folded form in UTF-8}, for every code point that folding changes.")
    print("constexpr FoldedCodePoint kFolded[] = {")
    for cp in range(LAST + 1):
        if 0xD800 <= cp <= 0xDFFF or is_hangul_syllable(cp):
            continue
        result = folded(cp)
        if result != chr(cp):
            print(f"  {{0x{cp:X}, {c_string(result)}}},")
    print("};")


if __name__ == "__main__":
    sys.exit(main())
