// examples/base/data/tsv.h — reading sentence pairs, one `spanish<TAB>english` per line.
// Lesson: docs/12-translation.md#data
//
// The format of examples/translate/data/spa-eng.tsv and of any file given with --data:
// UTF-8 text, one pair per line, the source (Spanish) sentence, one tab, the target
// (English) sentence. Accepted and cleaned up: a UTF-8 byte-order mark at the start, "\r\n"
// line endings, spaces around either side, and blank lines (skipped). Refused, with the file
// name, the line number and the byte offset in the message: a line with no tab or more than
// one, an empty side, invalid UTF-8, and a path that is not a regular file (a FIFO, a device:
// file_checks.h). All errors are std::invalid_argument.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace atencion::examples {

struct SentencePair {
  std::string source;  // Spanish
  std::string target;  // English
};

// The pairs of the file at `path`, in file order.
std::vector<SentencePair> read_pairs(const std::string& path);

// The pairs in `text`; `name` stands for the file in error messages.
std::vector<SentencePair> parse_pairs(std::string_view text, std::string_view name);

}  // namespace atencion::examples
