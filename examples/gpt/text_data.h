// examples/gpt/text_data.h — the text a GPT learns from, its held-out split, and its batches of
// windows.
// Lesson: docs/15-gpt.md#one-sequence-teaches-t-predictions
//
// The default text needs nothing downloaded: the English side of the Tatoeba pairs the
// translator ships (examples/translate/data/spa-eng.tsv), each distinct sentence once, in an
// order shuffled by the split seed (the file is sorted by length), one sentence a line.
// --text FILE takes any file instead (bytes as they are).
// Held out: the last 5% of the text, cut at a line start (or, in a text without one, at a
// character boundary). The held-out split is scored, never trained on.
//
// Batches: the training tokens are cut into windows of context + 1 tokens starting every
// `context` tokens; a window gives the input ids (its first context tokens) and the targets (its
// last context: each id's next). An epoch visits every window once, in an order shuffled from
// (seed, epoch), `batch_size` windows a batch: so a position (epoch, batch) names the batch,
// and --resume continues exactly.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "base/data/batching.h"
#include "tensor/tensor.h"

namespace atencion::examples::gpt {

// The shipped pairs (found beside the sources, or installed), or ATENCION_GPT_DATA.
std::string default_pairs_path();
// The default text: the distinct English sentences of `pairs_path`, shuffled by `seed`, one a
// line (each ending in "\n").
std::string english_side(const std::string& pairs_path, uint64_t seed);

struct TextSplit {
  std::string train;
  std::string held_out;
};
TextSplit split_text(const std::string& text, double held_out_fraction = 0.05);

// The ids and targets of a batch: [batch, T] each, targets = ids shifted by one.
struct TokenBatch {
  Tensor ids;
  Tensor targets;
  int64_t tokens() const { return ids.numel(); }
};

class WindowStream {
 public:
  // Throws std::invalid_argument when `tokens` hold fewer than batch_size windows.
  WindowStream(const std::vector<int64_t>& tokens, int64_t context, int64_t batch_size,
               uint64_t seed, BatchPosition start = {});
  TokenBatch next();
  BatchPosition position() const { return position_; }
  int64_t batches_per_epoch() const { return windows_ / batch_size_; }

 private:
  void plan();  // the window order of position_.epoch
  const std::vector<int64_t>& tokens_;
  int64_t context_, batch_size_, windows_;
  uint64_t seed_;
  BatchPosition position_;
  std::vector<int64_t> order_;
};

// The held-out windows in order (every `context` tokens, the last one shorter if need be), in
// batches of `batch_size`, at most `max_tokens` predictions in all (0: all of them).
std::vector<TokenBatch> evaluation_batches(const std::vector<int64_t>& tokens, int64_t context,
                                           int64_t batch_size, int64_t max_tokens);

}  // namespace atencion::examples::gpt
