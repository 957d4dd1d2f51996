// examples/gpt/text_data.cpp — see text_data.h.
#include "gpt/text_data.h"

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <stdexcept>
#include <unordered_set>

#include "base/data/shuffle.h"
#include "base/data/tsv.h"

namespace atencion::examples::gpt {

std::string default_pairs_path() {
  if (const char* override_path = std::getenv("ATENCION_GPT_DATA")) return override_path;
  const std::string shipped = std::string(ATENCION_GPT_DATA_DIR) + "/spa-eng.tsv";
  if (std::filesystem::exists(shipped)) return shipped;
  return std::string(ATENCION_GPT_INSTALLED_DATA_DIR) + "/spa-eng.tsv";
}

std::string english_side(const std::string& pairs_path, uint64_t seed) {
  std::vector<std::string> sentences;
  std::unordered_set<std::string> seen;
  for (auto& pair : read_pairs(pairs_path))
    if (seen.insert(pair.target).second) sentences.push_back(std::move(pair.target));
  SplitMix64 generator(seed);
  shuffle(sentences, generator);
  std::string text;
  for (const auto& sentence : sentences) text += sentence + "\n";
  return text;
}

TextSplit split_text(const std::string& text, double held_out_fraction) {
  size_t cut = static_cast<size_t>(static_cast<double>(text.size()) * (1 - held_out_fraction));
  const size_t line_start = text.find('\n', cut);
  if (line_start != std::string::npos && line_start + 1 < text.size()) {
    cut = line_start + 1;
  } else {  // no line starts after the cut: move it to a character's first byte
    while (cut < text.size() && (static_cast<unsigned char>(text[cut]) & 0xC0) == 0x80) ++cut;
  }
  return {text.substr(0, cut), text.substr(cut)};
}

WindowStream::WindowStream(const std::vector<int64_t>& tokens, int64_t context,
                           int64_t batch_size, uint64_t seed, BatchPosition start)
    : tokens_(tokens),
      context_(context),
      batch_size_(batch_size),
      windows_(tokens.empty() ? 0 : (static_cast<int64_t>(tokens.size()) - 1) / context),
      seed_(seed),
      position_(start) {
  if (windows_ < batch_size_)
    throw std::invalid_argument(
        "training text: " + std::to_string(tokens.size()) + " tokens make " +
        std::to_string(windows_) + " windows of context " + std::to_string(context) +
        " + 1, fewer than one batch of " + std::to_string(batch_size) +
        " (a longer text, or a smaller --context or --batch-size)");
  plan();
}

void WindowStream::plan() {
  order_.resize(static_cast<size_t>(windows_));
  for (int64_t i = 0; i < windows_; ++i) order_[static_cast<size_t>(i)] = i;
  SplitMix64 generator(derive_seed(seed_, static_cast<uint64_t>(position_.epoch)));
  shuffle(order_, generator);
}

TokenBatch WindowStream::next() {
  if (position_.batch >= batches_per_epoch()) {
    position_ = {position_.epoch + 1, 0};
    plan();
  }
  std::vector<int64_t> ids, targets;
  ids.reserve(static_cast<size_t>(batch_size_ * context_));
  targets.reserve(ids.capacity());
  for (int64_t row = 0; row < batch_size_; ++row) {
    const int64_t window = order_[static_cast<size_t>(position_.batch * batch_size_ + row)];
    const auto start = tokens_.begin() + window * context_;
    ids.insert(ids.end(), start, start + context_);
    targets.insert(targets.end(), start + 1, start + context_ + 1);
  }
  ++position_.batch;
  return {Tensor::from_ids(ids, {batch_size_, context_}),
          Tensor::from_ids(targets, {batch_size_, context_})};
}

std::vector<TokenBatch> evaluation_batches(const std::vector<int64_t>& tokens, int64_t context,
                                           int64_t batch_size, int64_t max_tokens) {
  const int64_t predictions = static_cast<int64_t>(tokens.size()) - 1;
  const int64_t total = max_tokens > 0 ? std::min(predictions, max_tokens) : predictions;
  std::vector<TokenBatch> batches;
  std::vector<int64_t> ids, targets;
  int64_t rows = 0;
  auto flush = [&](int64_t length) {
    if (rows == 0) return;
    batches.push_back({Tensor::from_ids(ids, {rows, length}), Tensor::from_ids(targets, {rows, length})});
    ids.clear();
    targets.clear();
    rows = 0;
  };
  for (int64_t start = 0; start < total; start += context) {
    const int64_t length = std::min(context, total - start);
    if (length < context) flush(context);  // the shorter last window is a batch of its own
    ids.insert(ids.end(), tokens.begin() + start, tokens.begin() + start + length);
    targets.insert(targets.end(), tokens.begin() + start + 1, tokens.begin() + start + length + 1);
    ++rows;
    if (rows == batch_size || length < context) flush(length);
  }
  flush(context);
  return batches;
}

}  // namespace atencion::examples::gpt
