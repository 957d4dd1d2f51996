// examples/base/data/batching.cpp — see batching.h.
#include "base/data/batching.h"

#include <algorithm>
#include <stdexcept>
#include <string>

#include "base/data/shuffle.h"

namespace atencion::examples {

namespace {

// The padded width an example needs: its source, or its target plus bos/eos.
int64_t width_of(const Example& example) {
  return std::max<int64_t>(static_cast<int64_t>(example.source_ids.size()),
                           static_cast<int64_t>(example.target_ids.size()) + 1);
}

}  // namespace

int64_t Batch::target_tokens() const {
  int64_t tokens = 0;
  for (const int64_t length : target_lengths) tokens += length;
  return tokens;
}

Batch make_batch(const std::vector<Example>& examples, const std::vector<size_t>& indices,
                 const BatchOptions& options) {
  if (indices.empty()) throw std::invalid_argument("make_batch: no examples");
  Batch batch;
  batch.batch_size = static_cast<int64_t>(indices.size());
  for (const size_t i : indices) {
    if (i >= examples.size())
      throw std::out_of_range("make_batch: example " + std::to_string(i) + " of " +
                              std::to_string(examples.size()));
    if (examples[i].source_ids.empty() || examples[i].target_ids.empty())
      throw std::invalid_argument("make_batch: example " + std::to_string(i) +
                                  " has an empty source or target");
    batch.source_length =
        std::max(batch.source_length, static_cast<int64_t>(examples[i].source_ids.size()));
    batch.target_length =
        std::max(batch.target_length, static_cast<int64_t>(examples[i].target_ids.size()) + 1);
  }
  const size_t B = indices.size();
  const auto S = static_cast<size_t>(batch.source_length);
  const auto T = static_cast<size_t>(batch.target_length);
  batch.source_ids.assign(B * S, options.pad_id);
  batch.target_input_ids.assign(B * T, options.pad_id);
  batch.target_output_ids.assign(B * T, options.pad_id);
  for (size_t row = 0; row < B; ++row) {
    const Example& example = examples[indices[row]];
    const std::vector<int64_t>& x = example.source_ids;
    const std::vector<int64_t>& y = example.target_ids;
    std::copy(x.begin(), x.end(), batch.source_ids.begin() + row * S);
    batch.target_input_ids[row * T] = options.bos_id;                          // bos y1 .. yn
    std::copy(y.begin(), y.end(), batch.target_input_ids.begin() + row * T + 1);
    std::copy(y.begin(), y.end(), batch.target_output_ids.begin() + row * T);  // y1 .. yn eos
    batch.target_output_ids[row * T + y.size()] = options.eos_id;
    batch.source_lengths.push_back(static_cast<int64_t>(x.size()));
    batch.target_lengths.push_back(static_cast<int64_t>(y.size()) + 1);
  }
  batch.example_indices = indices;
  return batch;
}

std::vector<std::vector<size_t>> plan_epoch(const std::vector<Example>& examples,
                                            const BatchOptions& options, uint64_t seed,
                                            int64_t epoch) {
  if (options.max_tokens <= 0)
    throw std::invalid_argument("plan_epoch: max_tokens must be positive, got " +
                                std::to_string(options.max_tokens));
  if (epoch < 0)
    throw std::invalid_argument("plan_epoch: epoch must be >= 0, got " + std::to_string(epoch));
  SplitMix64 generator(derive_seed(seed, static_cast<uint64_t>(epoch)));

  // 1. Shuffle, then sort by (source length, target length); the sort is stable, so examples
  //    of equal lengths keep the shuffled order and meet different neighbours each epoch.
  std::vector<size_t> order(examples.size());
  for (size_t i = 0; i < order.size(); ++i) order[i] = i;
  shuffle(order, generator);
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) {
    const Example& left = examples[a];
    const Example& right = examples[b];
    if (left.source_ids.size() != right.source_ids.size())
      return left.source_ids.size() < right.source_ids.size();
    return left.target_ids.size() < right.target_ids.size();
  });

  // 2. Cut: add examples while B * (widest so far) stays within the budget.
  std::vector<std::vector<size_t>> batches;
  std::vector<size_t> current;
  int64_t widest = 0;
  for (const size_t i : order) {
    const int64_t width = std::max(widest, width_of(examples[i]));
    const auto size_with_it = static_cast<int64_t>(current.size()) + 1;
    const bool over_budget = size_with_it * width > options.max_tokens;
    const bool too_many = options.max_sentences > 0 && size_with_it > options.max_sentences;
    if (!current.empty() && (over_budget || too_many)) {
      batches.push_back(std::move(current));
      current.clear();
      widest = 0;
    }
    current.push_back(i);
    widest = std::max(widest, width_of(examples[i]));
  }
  if (!current.empty()) batches.push_back(std::move(current));

  // 3. Visit the batches in a random order, so training does not go from short to long.
  shuffle(batches, generator);
  return batches;
}

BatchStream::BatchStream(const std::vector<Example>& examples, BatchOptions options,
                         uint64_t seed, BatchPosition start)
    : examples_(examples), options_(options), seed_(seed), position_(start) {
  if (examples_.empty()) throw std::invalid_argument("BatchStream: no examples");
  plan_ = plan_epoch(examples_, options_, seed_, position_.epoch);
  if (position_.batch < 0 || position_.batch > batches_per_epoch())
    throw std::out_of_range("BatchStream: batch " + std::to_string(position_.batch) +
                            " of epoch " + std::to_string(position_.epoch) + ", which has " +
                            std::to_string(batches_per_epoch()) + " batches");
}

Batch BatchStream::next() {
  if (position_.batch == batches_per_epoch()) {
    position_ = {position_.epoch + 1, 0};
    plan_ = plan_epoch(examples_, options_, seed_, position_.epoch);
  }
  Batch batch = make_batch(examples_, plan_[static_cast<size_t>(position_.batch)], options_);
  batch.epoch = position_.epoch;
  batch.index = position_.batch;
  ++position_.batch;
  return batch;
}

}  // namespace atencion::examples
