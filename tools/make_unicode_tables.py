#!/usr/bin/python3
"""Writes examples/base/data/wordpiece_unicode.inc: the Unicode facts BERT's basic tokenizer needs
(docs/16-bert.md#wordpiece), from Python's unicodedata, so that the C++ needs no ICU.

  punctuation   category P*                      (BERT also counts every non-alphanumeric ASCII
                                                  symbol, which the C++ checks itself)
  control       category C* (Cc Cf Cs Co Cn)      removed, except tab, newline and return
  space         category Zs                      (tab, newline and return are checked in C++)
  folded        lower-casing, then NFD, then every combining mark (Mn) dropped: "É" -> "e";
                Hangul syllables are left to the C++ (their NFD is arithmetic)

Run:  /usr/bin/python3 tools/make_unicode_tables.py > examples/base/data/wordpiece_unicode.inc
"""
import sys
import unicodedata

LAST = 0x10FFFF


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
    print("// examples/base/data/wordpiece_unicode.inc — made by tools/make_unicode_tables.py from")
    print(f"// Python's unicodedata (Unicode {unicodedata.unidata_version}); do not edit by hand.")
    print("// Included by examples/base/data/wordpiece.cpp.")
    write_ranges("kPunctuation", ranges(lambda cp: category(cp).startswith("P")))
    write_ranges("kControl", ranges(lambda cp: category(cp).startswith("C")))
    write_ranges("kSpace", ranges(lambda cp: category(cp) == "Zs"))
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
