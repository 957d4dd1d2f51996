// examples/base/data/tsv.cpp — see tsv.h.
#include "base/data/tsv.h"

#include <filesystem>
#include <sstream>
#include <stdexcept>

#include "base/data/utf8.h"
#include "base/io/file_checks.h"

namespace atencion::examples {

namespace {

std::string_view trim_spaces(std::string_view text) {
  const auto is_space = [](char c) { return c == ' ' || c == '\r' || c == '\v' || c == '\f'; };
  while (!text.empty() && is_space(text.front())) text.remove_prefix(1);
  while (!text.empty() && is_space(text.back())) text.remove_suffix(1);
  return text;
}

[[noreturn]] void fail(std::string_view name, size_t line_number, size_t byte_offset,
                       const std::string& problem) {
  std::ostringstream message;
  message << "read_pairs: " << name << ":" << line_number << " (byte " << byte_offset
          << "): " << problem;
  throw std::invalid_argument(message.str());
}

}  // namespace

std::vector<SentencePair> parse_pairs(std::string_view text, std::string_view name) {
  constexpr std::string_view byte_order_mark = "\xEF\xBB\xBF";
  size_t line_start = text.starts_with(byte_order_mark) ? byte_order_mark.size() : 0;
  std::vector<SentencePair> pairs;
  for (size_t line_number = 1; line_start < text.size(); ++line_number) {
    size_t line_end = text.find('\n', line_start);
    if (line_end == std::string_view::npos) line_end = text.size();
    std::string_view line = text.substr(line_start, line_end - line_start);
    if (line.ends_with('\r')) line.remove_suffix(1);

    if (const auto bad = find_invalid_utf8(line))
      fail(name, line_number, line_start + *bad, "invalid UTF-8");
    if (!line.empty()) {
      const size_t tab = line.find('\t');
      if (tab == std::string_view::npos)
        fail(name, line_number, line_start,
             "no tab: expected spanish<TAB>english on each line");
      if (line.find('\t', tab + 1) != std::string_view::npos)
        fail(name, line_number, line_start + line.find('\t', tab + 1),
             "more than one tab: expected spanish<TAB>english on each line");
      const std::string_view source = trim_spaces(line.substr(0, tab));
      const std::string_view target = trim_spaces(line.substr(tab + 1));
      if (source.empty()) fail(name, line_number, line_start, "empty Spanish (source) side");
      if (target.empty()) fail(name, line_number, line_start, "empty English (target) side");
      pairs.push_back({std::string(source), std::string(target)});
    }
    line_start = line_end + 1;
  }
  if (pairs.empty())
    throw std::invalid_argument("read_pairs: " + std::string(name) + ": no sentence pairs");
  return pairs;
}

std::vector<SentencePair> read_pairs(const std::string& path) {
  if (std::filesystem::is_directory(path))
    throw std::invalid_argument("read_pairs: '" + path + "' is a directory, not a pairs file");
  std::string contents;
  try {
    contents = read_file(path);  // a regular file only: a FIFO or /dev/zero is refused
  } catch (const std::runtime_error& error) {
    throw std::invalid_argument(std::string("read_pairs: cannot open ") + error.what());
  }
  return parse_pairs(contents, path);
}

}  // namespace atencion::examples
