// examples/gpt/text_tokenizer.cpp — see text_tokenizer.h.
#include "gpt/text_tokenizer.h"

#include <cstdio>
#include <stdexcept>

#include "base/data/utf8.h"

namespace atencion::examples::gpt {

TextTokenizer TextTokenizer::bytes() { return TextTokenizer(); }

TextTokenizer TextTokenizer::sentencepiece(Tokenizer tokenizer) {
  TextTokenizer result;
  result.kind_ = Kind::SentencePiece;
  result.pieces_ = std::make_shared<const Tokenizer>(std::move(tokenizer));
  return result;
}

TextTokenizer TextTokenizer::gpt2(Gpt2Bpe bpe) {
  TextTokenizer result;
  result.kind_ = Kind::Gpt2;
  result.bpe_ = std::make_shared<const Gpt2Bpe>(std::move(bpe));
  return result;
}

const char* TextTokenizer::kind_name() const {
  switch (kind_) {
    case Kind::Bytes: return "bytes";
    case Kind::SentencePiece: return "sentencepiece";
    case Kind::Gpt2: return "gpt2";
  }
  return "?";
}

std::vector<int64_t> TextTokenizer::encode(std::string_view text) const {
  if (kind_ == Kind::Bytes) {
    std::vector<int64_t> ids;
    ids.reserve(text.size());
    for (const char byte : text) ids.push_back(static_cast<unsigned char>(byte));
    return ids;
  }
  if (const auto bad = find_invalid_utf8(text))
    throw std::invalid_argument(std::string(kind_name()) +
                                " tokens: the text is not valid UTF-8 (byte offset " +
                                std::to_string(*bad) + "); byte-level tokens accept any bytes");
  if (kind_ == Kind::Gpt2) return bpe_->encode(text);
  // SentencePiece: line by line, each line ending in eos
  std::vector<int64_t> ids;
  size_t start = 0;
  while (start <= text.size()) {
    const size_t end = text.find('\n', start);
    const std::string_view line =
        text.substr(start, end == std::string_view::npos ? std::string_view::npos : end - start);
    for (const int64_t id : pieces_->encode(line)) ids.push_back(id);
    if (end == std::string_view::npos) break;
    ids.push_back(Tokenizer::eos_id);
    start = end + 1;
  }
  return ids;
}

std::string TextTokenizer::decode(const std::vector<int64_t>& ids) const {
  if (kind_ == Kind::Bytes) {
    std::string text;
    for (const int64_t id : ids) text.push_back(static_cast<char>(static_cast<unsigned char>(id)));
    return text;
  }
  if (kind_ == Kind::Gpt2) return bpe_->decode(ids);
  std::string text;
  std::vector<int64_t> line;
  for (const int64_t id : ids) {
    if (id == Tokenizer::eos_id) {
      text += pieces_->decode(line) + "\n";
      line.clear();
    } else {
      line.push_back(id);
    }
  }
  return text + pieces_->decode(line);
}

std::string TextTokenizer::label(int64_t id) const {
  const std::string text = kind_ == Kind::SentencePiece ? pieces_->piece(id) : decode({id});
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

int64_t TextTokenizer::vocab_size() const {
  switch (kind_) {
    case Kind::Bytes: return 256;
    case Kind::SentencePiece: return pieces_->vocab_size();
    case Kind::Gpt2: return bpe_->vocab_size();
  }
  return 0;
}

int64_t TextTokenizer::start_id() const {
  switch (kind_) {
    case Kind::Bytes: return '\n';
    case Kind::SentencePiece: return Tokenizer::eos_id;
    case Kind::Gpt2: return bpe_->end_of_text_id();
  }
  return 0;
}

std::string TextTokenizer::file_name() const {
  return kind_ == Kind::SentencePiece ? "tokenizer.model" : "";
}

std::string TextTokenizer::file_bytes() const {
  return kind_ == Kind::SentencePiece ? pieces_->serialized() : "";
}

TextTokenizer TextTokenizer::from_checkpoint(const std::string& kind,
                                             const std::string& file_bytes) {
  if (kind == "bytes") return bytes();
  if (kind == "sentencepiece") return sentencepiece(Tokenizer::from_serialized(file_bytes));
  throw std::runtime_error("tokenizer \"" + kind + "\" is not one a checkpoint can hold "
                           "(bytes, sentencepiece)");
}

}  // namespace atencion::examples::gpt
