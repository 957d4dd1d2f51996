// examples/gpt/gpt2_bpe.cpp — see gpt2_bpe.h. Lesson: docs/15-gpt.md#gpt-2s-tokenizer
#include "gpt/gpt2_bpe.h"

#include <filesystem>
#include <limits>
#include <stdexcept>

#include "base/data/unicode_classes.h"
#include "base/data/utf8.h"
#include "base/io/file_checks.h"
#include "base/io/model_directory.h"
#include "nlohmann/json.hpp"

namespace atencion::examples::gpt {
namespace {

using unicode::is_letter;
using unicode::is_number;
bool is_space(char32_t c) { return unicode::is_white_space(c); }
bool is_other(char32_t c) { return !is_space(c) && !is_letter(c) && !is_number(c); }

std::string utf8_of(char32_t c) {
  std::string out;
  append_utf8(out, c);
  return out;
}

// A cursor over the code points of valid UTF-8.
struct Cursor {
  std::string_view text;
  size_t at(size_t offset, char32_t* c) const {  // the length of the code point at offset
    const CodePoint point = decode_utf8(text, offset);
    *c = point.value;
    return point.length;
  }
  // The end of the run of code points from `offset` for which `keep` holds.
  template <typename Keep>
  size_t run(size_t offset, Keep keep) const {
    char32_t c;
    while (offset < text.size()) {
      const size_t length = at(offset, &c);
      if (!keep(c)) break;
      offset += length;
    }
    return offset;
  }
};

}  // namespace

std::string Gpt2Bpe::byte_to_symbol(unsigned char byte) {
  auto printable = [](int b) {
    return (b >= '!' && b <= '~') || (b >= 0xA1 && b <= 0xAC) || (b >= 0xAE && b <= 0xFF);
  };
  if (printable(byte)) return utf8_of(byte);
  int shifted = 0;  // how many non-printable bytes come before this one
  for (int b = 0; b < byte; ++b) shifted += printable(b) ? 0 : 1;
  return utf8_of(static_cast<char32_t>(256 + shifted));
}

std::vector<std::string_view> Gpt2Bpe::pretokenize(std::string_view text) {
  std::vector<std::string_view> words;
  const Cursor cursor{text};
  size_t i = 0;
  while (i < text.size()) {
    size_t end = i;
    // 's|'t|'re|'ve|'m|'ll|'d
    for (const char* contraction : {"'s", "'t", "'re", "'ve", "'m", "'ll", "'d"}) {
      if (text.substr(i).starts_with(contraction)) {
        end = i + std::string_view(contraction).size();
        break;
      }
    }
    // ' ?\p{L}+', ' ?\p{N}+', ' ?[^\s\p{L}\p{N}]+': an optional space, then a run of one class
    if (end == i) {
      const size_t start = text[i] == ' ' ? i + 1 : i;
      for (auto kind : {is_letter, is_number, is_other}) {
        const size_t run_end = cursor.run(start, kind);
        if (run_end > start) {
          end = run_end;
          break;
        }
      }
    }
    // '\s+(?!\S)': whitespace, less its last character when a non-space follows; else '\s+'
    if (end == i) {
      const size_t run_end = cursor.run(i, is_space);
      end = run_end;
      if (run_end < text.size()) {  // a non-space follows: give it the last whitespace
        size_t last = i, next = i;
        char32_t c;
        while (next < run_end) {
          last = next;
          next += cursor.at(next, &c);
        }
        if (last > i) end = last;
      }
    }
    words.push_back(text.substr(i, end - i));
    i = end;
  }
  return words;
}

Gpt2Bpe Gpt2Bpe::parse(std::string_view vocab_json, std::string_view merges,
                       const std::string& vocab_name, const std::string& merges_name) {
  Gpt2Bpe bpe;
  bpe.vocab_file_ = vocab_name;
  bpe.vocab_json_ = vocab_json;
  bpe.merges_ = merges;
  nlohmann::json vocab;
  try {
    vocab = nlohmann::json::parse(vocab_json);
  } catch (const nlohmann::json::exception& error) {
    throw std::runtime_error(vocab_name + ": not JSON: " + error.what());
  }
  if (!vocab.is_object() || vocab.empty())
    throw std::runtime_error(vocab_name + ": expected an object of symbol: id");
  bpe.symbols_.resize(vocab.size());
  for (const auto& [symbol, id] : vocab.items()) {
    if (!id.is_number_integer() || id.get<int64_t>() < 0 ||
        id.get<int64_t>() >= static_cast<int64_t>(vocab.size()) ||
        !bpe.symbols_[id.get<size_t>()].empty())
      throw std::runtime_error(vocab_name + ": symbol \"" + symbol + "\" has id " + id.dump() +
                               ", not a distinct id below " + std::to_string(vocab.size()));
    bpe.symbols_[id.get<size_t>()] = symbol;
    bpe.ids_[symbol] = id.get<int64_t>();
  }
  for (int byte = 0; byte < 256; ++byte) {
    const std::string symbol = byte_to_symbol(static_cast<unsigned char>(byte));
    bpe.bytes_of_symbol_[symbol] = static_cast<unsigned char>(byte);
    if (!bpe.ids_.contains(symbol))
      throw std::runtime_error(vocab_name + ": no id for the symbol of byte " +
                               std::to_string(byte) + " (\"" + symbol + "\")");
  }
  size_t start = 0;
  int64_t line_number = 0, rank = 0;
  while (start < merges.size()) {
    size_t end = merges.find('\n', start);
    if (end == std::string_view::npos) end = merges.size();
    std::string_view line = merges.substr(start, end - start);
    start = end + 1;
    ++line_number;
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    if (line.empty() || (line_number == 1 && line.starts_with("#version"))) continue;
    const size_t space = line.find(' ');
    if (space == std::string_view::npos || space == 0 || space + 1 == line.size() ||
        line.find(' ', space + 1) != std::string_view::npos)
      throw std::runtime_error(merges_name + ": line " + std::to_string(line_number) +
                               ": expected two symbols separated by one space");
    bpe.ranks_.emplace(std::pair{std::string(line.substr(0, space)),
                                 std::string(line.substr(space + 1))},
                       rank++);
  }
  return bpe;
}

Gpt2Bpe Gpt2Bpe::load(const std::string& dir) {
  constexpr const char* kHolds =
      "GPT-2's tokenizer is vocab.json and merges.txt, or encoder.json and vocab.bpe";
  namespace fs = std::filesystem;
  for (const auto& [vocab, merges] : {std::pair{"vocab.json", "merges.txt"},
                                      std::pair{"encoder.json", "vocab.bpe"}}) {
    const std::string vocab_path = (fs::path(dir) / vocab).string();
    const std::string merges_path = (fs::path(dir) / merges).string();
    if (model_file_present(dir, vocab) || model_file_present(dir, merges))  // a FIFO: refused
      return parse(read_file(model_file(dir, vocab, kHolds)),
                   read_file(model_file(dir, merges, kHolds)), vocab_path, merges_path);
  }
  throw std::runtime_error(dir + ": no GPT-2 tokenizer (vocab.json and merges.txt, or "
                           "encoder.json and vocab.bpe)");
}

int64_t Gpt2Bpe::end_of_text_id() const {
  const auto found = ids_.find("<|endoftext|>");
  return found != ids_.end() ? found->second : ids_.at(byte_to_symbol('\n'));
}

std::vector<std::string> Gpt2Bpe::encode_word(std::string_view word) const {
  std::vector<std::string> symbols;
  for (const char byte : word) symbols.push_back(byte_to_symbol(static_cast<unsigned char>(byte)));
  while (symbols.size() > 1) {
    // the neighbouring pair merged first: the lowest rank
    int64_t best_rank = std::numeric_limits<int64_t>::max();
    const std::pair<std::string, std::string>* best = nullptr;
    for (size_t i = 0; i + 1 < symbols.size(); ++i) {
      const auto found = ranks_.find({symbols[i], symbols[i + 1]});
      if (found != ranks_.end() && found->second < best_rank) {
        best_rank = found->second;
        best = &found->first;
      }
    }
    if (best == nullptr) break;
    // merge every occurrence of that pair, left to right
    std::vector<std::string> merged;
    for (size_t i = 0; i < symbols.size(); ++i) {
      if (i + 1 < symbols.size() && symbols[i] == best->first && symbols[i + 1] == best->second) {
        merged.push_back(symbols[i] + symbols[i + 1]);
        ++i;
      } else {
        merged.push_back(symbols[i]);
      }
    }
    symbols = std::move(merged);
  }
  return symbols;
}

std::vector<int64_t> Gpt2Bpe::encode(std::string_view text) const {
  std::vector<int64_t> ids;
  for (const std::string_view word : pretokenize(text)) {
    for (const std::string& symbol : encode_word(word)) {
      const auto found = ids_.find(symbol);
      if (found == ids_.end())
        throw std::runtime_error("GPT-2 tokenizer: the merges make \"" + symbol +
                                 "\", which the vocabulary does not have (files from two "
                                 "different tokenizers?)");
      ids.push_back(found->second);
    }
  }
  return ids;
}

std::string Gpt2Bpe::decode(const std::vector<int64_t>& ids) const {
  std::string bytes;
  for (const int64_t id : ids) {
    if (id < 0 || id >= vocab_size())
      throw std::invalid_argument("GPT-2 tokenizer: id " + std::to_string(id) +
                                  " is not in the vocabulary of " + std::to_string(vocab_size()));
    const std::string& symbol = symbols_[static_cast<size_t>(id)];
    size_t offset = 0;
    while (offset < symbol.size()) {
      const CodePoint point = decode_utf8(symbol, offset);
      const auto found = bytes_of_symbol_.find(symbol.substr(offset, point.length));
      // A symbol outside the byte alphabet (a special token such as <|endoftext|>) is kept as
      // its own text.
      if (found == bytes_of_symbol_.end()) {
        bytes += symbol.substr(offset, point.length);
      } else {
        bytes += static_cast<char>(found->second);
      }
      offset += point.length;
    }
  }
  return bytes;
}

}  // namespace atencion::examples::gpt
