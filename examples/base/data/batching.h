// examples/base/data/batching.h — batches of similar lengths, padded, in a seeded order.
// Lesson: docs/12-translation.md#batching
//
// A batch is a rectangle: B sentences padded to the longest one. Sorting by length before
// cutting batches keeps the padding (wasted work) small, and a token budget instead of a
// fixed B keeps the work per step about even: many short sentences or a few long ones.
//
// For one example with target pieces y1 .. yn, the decoder reads and predicts
//   target input  = bos y1 y2 .. yn        (what the decoder sees: teacher forcing)
//   target output = y1  y2 .. yn eos       (what it must predict at each position)
// both of length n + 1, then padded with pad_id up to T.
//
// Each epoch's batches are a pure function of (examples, options, seed, epoch): the examples
// are shuffled, stably sorted by length (so equal lengths land in a different batch each
// epoch), cut into batches, and the batches are shuffled. A run that saves (epoch, batch)
// and restarts from it sees exactly the batches it would have seen.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace atencion::examples {

struct Example {
  std::vector<int64_t> source_ids;  // x1 .. xm, no bos or eos
  std::vector<int64_t> target_ids;  // y1 .. yn, no bos or eos
};

struct BatchOptions {
  // Upper bound on B * max(S, T), the padded size of the bigger of the two rectangles.
  // An example longer than the budget on its own gets a batch of one.
  int64_t max_tokens = 4096;
  int64_t max_sentences = 0;  // upper bound on B as well; 0 for none
  int64_t pad_id = 0;
  int64_t bos_id = 2;
  int64_t eos_id = 3;
};

// Plain row-major arrays, ready for Tensor::from_ids(ids, shape).
struct Batch {
  int64_t epoch = 0;
  int64_t index = 0;           // position of this batch within its epoch
  int64_t batch_size = 0;      // B
  int64_t source_length = 0;   // S, the longest source
  int64_t target_length = 0;   // T, the longest target + 1
  std::vector<int64_t> source_ids;         // [B, S]: x1 .. xm, pad ..
  std::vector<int64_t> target_input_ids;   // [B, T]: bos y1 .. yn, pad ..
  std::vector<int64_t> target_output_ids;  // [B, T]: y1 .. yn eos, pad ..
  std::vector<int64_t> source_lengths;     // [B]: m for each row
  std::vector<int64_t> target_lengths;     // [B]: n + 1 for each row
  std::vector<size_t> example_indices;     // [B]: which examples, for looking them up

  std::vector<int64_t> source_shape() const { return {batch_size, source_length}; }
  std::vector<int64_t> target_shape() const { return {batch_size, target_length}; }
  int64_t target_tokens() const;  // the non-pad positions of target_output_ids
};

// Pads the examples at `indices` into one batch (rows in the order of `indices`).
Batch make_batch(const std::vector<Example>& examples, const std::vector<size_t>& indices,
                 const BatchOptions& options);

// The example indices of every batch of `epoch`, in the order the epoch visits them.
std::vector<std::vector<size_t>> plan_epoch(const std::vector<Example>& examples,
                                            const BatchOptions& options, uint64_t seed,
                                            int64_t epoch);

// Where a stream of batches stands: the next batch it gives is batch `batch` of `epoch`.
// Save it in a checkpoint; give it back to resume.
struct BatchPosition {
  int64_t epoch = 0;
  int64_t batch = 0;
};

// Batches one after another, epoch after epoch, from a position.
//   BatchStream stream(examples, options, seed, saved_position);
//   while (training) { Batch batch = stream.next(); ... checkpoint(stream.position()); }
// The stream keeps a reference to `examples`: keep them alive and unchanged.
class BatchStream {
 public:
  BatchStream(const std::vector<Example>& examples, BatchOptions options, uint64_t seed,
              BatchPosition start = {});
  Batch next();
  BatchPosition position() const { return position_; }
  int64_t batches_per_epoch() const { return static_cast<int64_t>(plan_.size()); }

 private:
  const std::vector<Example>& examples_;
  BatchOptions options_;
  uint64_t seed_;
  BatchPosition position_;
  std::vector<std::vector<size_t>> plan_;  // the batches of position_.epoch
};

}  // namespace atencion::examples
