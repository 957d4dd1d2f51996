// Tests for examples/base/data/batching.cpp: padding, the token budget, the seeded epoch
// order and resuming a stream.
#include <catch2/catch.hpp>

#include <algorithm>
#include <set>
#include <stdexcept>
#include <vector>

#include "base/data/batching.h"

using namespace atencion::examples;

using Catch::Matchers::Contains;

namespace {

// Example k: source of length (k % 7) + 1 and target of length (k % 5) + 1, with ids that
// say where they come from (100k + position, 500k + position).
std::vector<Example> make_examples(int count) {
  std::vector<Example> examples;
  for (int k = 0; k < count; ++k) {
    Example example;
    for (int i = 0; i <= k % 7; ++i) example.source_ids.push_back(100 * k + 10 + i);
    for (int i = 0; i <= k % 5; ++i) example.target_ids.push_back(100 * k + 50 + i);
    examples.push_back(example);
  }
  return examples;
}

}  // namespace

TEST_CASE("make_batch pads sources and builds bos+y / y+eos targets", "[translate][batching]") {
  const std::vector<Example> examples = {{{11, 12, 13}, {21}}, {{14}, {22, 23, 24}}};
  const Batch batch = make_batch(examples, {0, 1}, BatchOptions{});
  CHECK(batch.source_shape() == std::vector<int64_t>{2, 3});
  CHECK(batch.target_shape() == std::vector<int64_t>{2, 4});
  CHECK(batch.source_ids == std::vector<int64_t>{11, 12, 13,  //
                                                 14, 0, 0});
  CHECK(batch.target_input_ids == std::vector<int64_t>{2, 21, 0, 0,  //
                                                       2, 22, 23, 24});
  CHECK(batch.target_output_ids == std::vector<int64_t>{21, 3, 0, 0,  //
                                                        22, 23, 24, 3});
  CHECK(batch.source_lengths == std::vector<int64_t>{3, 1});
  CHECK(batch.target_lengths == std::vector<int64_t>{2, 4});
  CHECK(batch.target_tokens() == 6);
  CHECK(batch.example_indices == std::vector<size_t>{0, 1});

  BatchOptions other_ids;
  other_ids.pad_id = 9;
  other_ids.bos_id = 7;
  other_ids.eos_id = 8;
  const Batch reversed = make_batch(examples, {1, 0}, other_ids);
  CHECK(reversed.source_ids == std::vector<int64_t>{14, 9, 9, 11, 12, 13});
  CHECK(reversed.target_output_ids == std::vector<int64_t>{22, 23, 24, 8, 21, 8, 9, 9});
}

TEST_CASE("make_batch refuses bad indices and empty sides", "[translate][batching]") {
  const std::vector<Example> examples = {{{11}, {21}}, {{}, {22}}};
  CHECK_THROWS_AS(make_batch(examples, {2}, {}), std::out_of_range);
  CHECK_THROWS_WITH(make_batch(examples, {1}, {}), Contains("empty source or target"));
  CHECK_THROWS_WITH(make_batch(examples, {}, {}), Contains("no examples"));
}

TEST_CASE("plan_epoch covers every example once, within the token budget",
          "[translate][batching]") {
  const auto examples = make_examples(500);
  BatchOptions options;
  options.max_tokens = 40;
  const auto plan = plan_epoch(examples, options, 11, 0);
  std::vector<size_t> seen;
  int64_t padded_tokens = 0;
  int64_t real_tokens = 0;
  for (const auto& indices : plan) {
    const Batch batch = make_batch(examples, indices, options);
    CHECK(batch.batch_size * std::max(batch.source_length, batch.target_length) <= 40);
    seen.insert(seen.end(), indices.begin(), indices.end());
    padded_tokens += batch.batch_size * batch.source_length;
    for (const int64_t length : batch.source_lengths) real_tokens += length;
  }
  std::sort(seen.begin(), seen.end());
  REQUIRE(seen.size() == 500);
  for (size_t i = 0; i < seen.size(); ++i) CHECK(seen[i] == i);
  // Sorting by length first leaves little padding on the source side: every batch holds one
  // source length except the few that straddle two.
  CHECK(static_cast<double>(real_tokens) / static_cast<double>(padded_tokens) > 0.95);
}

TEST_CASE("plan_epoch honours max_sentences and gives a long example its own batch",
          "[translate][batching]") {
  auto examples = make_examples(50);
  examples[3].source_ids.assign(100, 5);  // wider than the whole budget
  BatchOptions options;
  options.max_tokens = 64;
  options.max_sentences = 4;
  bool found_alone = false;
  for (const auto& indices : plan_epoch(examples, options, 3, 0)) {
    CHECK(indices.size() <= 4);
    if (std::find(indices.begin(), indices.end(), 3) != indices.end()) {
      CHECK(indices.size() == 1);
      found_alone = true;
    }
  }
  CHECK(found_alone);
  options.max_tokens = 0;
  CHECK_THROWS_WITH(plan_epoch(examples, options, 3, 0), Contains("max_tokens"));
}

TEST_CASE("plan_epoch is a function of the seed and the epoch", "[translate][batching]") {
  const auto examples = make_examples(300);
  BatchOptions options;
  options.max_tokens = 30;
  CHECK(plan_epoch(examples, options, 1, 0) == plan_epoch(examples, options, 1, 0));
  CHECK(plan_epoch(examples, options, 1, 0) != plan_epoch(examples, options, 1, 1));
  CHECK(plan_epoch(examples, options, 1, 0) != plan_epoch(examples, options, 2, 0));
  // Between epochs, examples of equal length meet different neighbours.
  const auto as_set = [](const std::vector<std::vector<size_t>>& plan) {
    std::set<std::vector<size_t>> batches;
    for (auto indices : plan) {
      std::sort(indices.begin(), indices.end());
      batches.insert(indices);
    }
    return batches;
  };
  CHECK(as_set(plan_epoch(examples, options, 1, 0)) != as_set(plan_epoch(examples, options, 1, 1)));
}

TEST_CASE("BatchStream crosses epochs and resumes at a saved position", "[translate][batching]") {
  const auto examples = make_examples(120);
  BatchOptions options;
  options.max_tokens = 24;
  BatchStream stream(examples, options, 9);
  const int64_t per_epoch = stream.batches_per_epoch();
  REQUIRE(per_epoch > 5);

  // A run of 2.5 epochs, remembering where it stood before each batch.
  std::vector<Batch> batches;
  std::vector<BatchPosition> positions;
  for (int64_t step = 0; step < per_epoch * 5 / 2; ++step) {
    positions.push_back(stream.position());
    batches.push_back(stream.next());
  }
  CHECK(batches[0].epoch == 0);
  CHECK(batches[static_cast<size_t>(per_epoch) - 1].index == per_epoch - 1);
  CHECK(batches[static_cast<size_t>(per_epoch)].epoch == 1);
  CHECK(batches[static_cast<size_t>(per_epoch)].index == 0);
  const auto epoch_one = plan_epoch(examples, options, 9, 1);
  CHECK(batches[static_cast<size_t>(per_epoch) + 2].example_indices == epoch_one[2]);

  // Restarting from any saved position gives the same batches from there on.
  for (const size_t step : {size_t{0}, size_t{3}, static_cast<size_t>(per_epoch),
                            static_cast<size_t>(per_epoch) + 4}) {
    BatchStream resumed(examples, options, 9, positions[step]);
    for (size_t later = step; later < step + 3; ++later) {
      const Batch batch = resumed.next();
      CHECK(batch.epoch == batches[later].epoch);
      CHECK(batch.index == batches[later].index);
      CHECK(batch.source_ids == batches[later].source_ids);
      CHECK(batch.target_output_ids == batches[later].target_output_ids);
    }
  }
  // The position after the last batch of an epoch resumes into the next epoch.
  BatchStream at_end(examples, options, 9, {0, per_epoch});
  CHECK(at_end.next().example_indices == epoch_one[0]);
  CHECK_THROWS_AS(BatchStream(examples, options, 9, {0, per_epoch + 1}), std::out_of_range);
}
