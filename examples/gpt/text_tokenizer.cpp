// examples/gpt/text_tokenizer.cpp — see text_tokenizer.h.
#include "gpt/text_tokenizer.h"

#include <cstdio>
#include <stdexcept>

#include "base/data/utf8.h"

namespace atencion::examples::gpt {
namespace {

// id = the byte's value.
class ByteTokens : public TextTokenizer {
 public:
  std::vector<int64_t> encode(std::string_view text) const override {
    std::vector<int64_t> ids;
    ids.reserve(text.size());
    for (const char byte : text) ids.push_back(static_cast<unsigned char>(byte));
    return ids;
  }
  std::string decode(const std::vector<int64_t>& ids) const override {
    std::string text;
    for (const int64_t id : ids) text.push_back(static_cast<char>(static_cast<unsigned char>(id)));
    return text;
  }
  int64_t vocab_size() const override { return 256; }
  int64_t start_id() const override { return '\n'; }
  const char* kind_name() const override { return "bytes"; }
};

// Line by line, each line ending in eos.
class SentencePieceTokens : public TextTokenizer {
 public:
  explicit SentencePieceTokens(Tokenizer pieces) : pieces_(std::move(pieces)) {}
  std::vector<int64_t> encode(std::string_view text) const override {
    require_utf8(text);
    std::vector<int64_t> ids;
    size_t start = 0;
    while (start <= text.size()) {
      const size_t end = text.find('\n', start);
      const std::string_view line =
          text.substr(start, end == std::string_view::npos ? std::string_view::npos : end - start);
      for (const int64_t id : pieces_.encode(line)) ids.push_back(id);
      if (end == std::string_view::npos) break;
      ids.push_back(Tokenizer::eos_id);
      start = end + 1;
    }
    return ids;
  }
  std::string decode(const std::vector<int64_t>& ids) const override {
    std::string text;
    std::vector<int64_t> line;
    for (const int64_t id : ids) {
      if (id == Tokenizer::eos_id) {
        text += pieces_.decode(line) + "\n";
        line.clear();
      } else {
        line.push_back(id);
      }
    }
    return text + pieces_.decode(line);
  }
  int64_t vocab_size() const override { return pieces_.vocab_size(); }
  int64_t start_id() const override { return Tokenizer::eos_id; }
  const char* kind_name() const override { return "sentencepiece"; }
  std::map<std::string, std::string> files() const override {
    return {{"tokenizer.model", pieces_.serialized()}};
  }

 protected:
  std::string id_text(int64_t id) const override { return pieces_.piece(id); }

 private:
  Tokenizer pieces_;
};

// GPT-2's byte-level BPE (gpt2_bpe.h).
class Gpt2Tokens : public TextTokenizer {
 public:
  explicit Gpt2Tokens(Gpt2Bpe bpe) : bpe_(std::move(bpe)) {}
  std::vector<int64_t> encode(std::string_view text) const override {
    require_utf8(text);
    return bpe_.encode(text);
  }
  std::string decode(const std::vector<int64_t>& ids) const override { return bpe_.decode(ids); }
  int64_t vocab_size() const override { return bpe_.vocab_size(); }
  int64_t start_id() const override { return bpe_.end_of_text_id(); }
  const char* kind_name() const override { return "gpt2"; }
  std::map<std::string, std::string> files() const override {
    return {{"vocab.json", bpe_.vocab_json()}, {"merges.txt", bpe_.merges()}};
  }

 private:
  Gpt2Bpe bpe_;
};

}  // namespace

std::shared_ptr<const TextTokenizer> TextTokenizer::bytes() {
  return std::make_shared<const ByteTokens>();
}

std::shared_ptr<const TextTokenizer> TextTokenizer::sentencepiece(Tokenizer tokenizer) {
  return std::make_shared<const SentencePieceTokens>(std::move(tokenizer));
}

std::shared_ptr<const TextTokenizer> TextTokenizer::gpt2(Gpt2Bpe bpe) {
  return std::make_shared<const Gpt2Tokens>(std::move(bpe));
}

std::shared_ptr<const TextTokenizer> TextTokenizer::from_checkpoint(
    const std::string& kind, const std::map<std::string, std::string>& files) {
  auto file = [&](const std::string& name) -> const std::string& {
    const auto found = files.find(name);
    if (found == files.end())
      throw std::runtime_error(name + ": missing (a " + kind + " run's checkpoint holds it)");
    return found->second;
  };
  if (kind == "bytes") return bytes();
  if (kind == "sentencepiece") return sentencepiece(Tokenizer::from_serialized(file("tokenizer.model")));
  if (kind == "gpt2")
    return gpt2(Gpt2Bpe::parse(file("vocab.json"), file("merges.txt"), "vocab.json", "merges.txt"));
  throw std::runtime_error("tokenizer \"" + kind + "\" is not one a checkpoint can hold "
                           "(bytes, sentencepiece, gpt2)");
}

void TextTokenizer::require_utf8(std::string_view text) const {
  if (const auto bad = find_invalid_utf8(text))
    throw std::invalid_argument(std::string(kind_name()) +
                                " tokens: the text is not valid UTF-8 (byte offset " +
                                std::to_string(*bad) + "); byte-level tokens accept any bytes");
}

std::string TextTokenizer::label(int64_t id) const {
  const std::string text = id_text(id);
  std::string shown;
  for (size_t at = 0; at < text.size();) {
    const CodePoint point = decode_utf8(text, at);
    const auto byte = static_cast<unsigned char>(text[at]);
    if (byte == ' ') {
      shown += "\u2423";  // ␣
    } else if (byte == '\n') {
      shown += "\u21b5";  // ↵
    } else if (byte < 0x20 || byte == 0x7f || (byte >= 0x80 && point.length == 1)) {
      // a control byte, or a byte that is not (the start of) a whole UTF-8 character: a
      // byte token of its own, or one of the pieces GPT-2's BPE cuts a character into
      char escaped[8];
      std::snprintf(escaped, sizeof escaped, "\\x%02x", byte);
      shown += escaped;
    } else {
      shown.append(text, at, point.length);
    }
    at += point.length;
  }
  return shown;
}

}  // namespace atencion::examples::gpt
