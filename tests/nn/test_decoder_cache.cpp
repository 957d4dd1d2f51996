// tests/nn/test_decoder_cache.cpp — nn/decoder_cache.cpp: a step with the key/value cache gives
// the logits of Transformer::decode's last position bit for bit, the beam's reordering keeps rows
// with their keys and values, the buffers are allocated once (no step reallocates or grows
// them), and a prefix fed at once continues one step at a time, on random tiny models. (Greedy
// and beam search with and without the cache: tests/examples/base/decoding/test_encoder_decoder.cpp.)
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <memory>
#include <stdexcept>
#include <vector>

#include "nn/decoder_cache.h"
#include "nn/linear.h"
#include "nn/masks.h"
#include "nn/transformer.h"
#include "tensor/gemm_bfloat16.h"
#include "tensor/random.h"
#include "tensor/tensor.h"

using namespace atencion;
using namespace atencion::nn;
using Catch::Matchers::Contains;

namespace {

constexpr int64_t pad = 0, bos = 2;

// A random tiny Transformer in eval mode: post- or pre-norm, tied output or not, two decoder
// layers so that the cache of a layer feeds the next.
std::unique_ptr<Transformer> random_model(uint64_t seed, bool norm_first, bool tied) {
  TransformerConfig config{.src_vocab = 11, .tgt_vocab = 9, .d_model = 8, .heads = 2,
                           .encoder_layers = 1, .decoder_layers = 2, .d_ff = 16,
                           .dropout = 0.1, .max_len = 24, .norm_first = norm_first,
                           .tie_target_embeddings = tied, .padding_idx = pad};
  Generator generator(seed);
  auto model = std::make_unique<Transformer>(config, generator);
  model->eval();
  return model;
}

// Padded ids [rows, longest] and the padding mask of `sources`.
Tensor padded(const std::vector<std::vector<int64_t>>& sources, Tensor& mask) {
  int64_t longest = 0;
  std::vector<int64_t> lengths;
  for (const auto& source : sources) {
    longest = std::max<int64_t>(longest, source.size());
    lengths.push_back(source.size());
  }
  std::vector<int64_t> ids;
  for (const auto& source : sources) {
    ids.insert(ids.end(), source.begin(), source.end());
    ids.insert(ids.end(), longest - source.size(), pad);
  }
  mask = padding_mask(lengths, longest);
  return Tensor::from_ids(ids, {static_cast<int64_t>(sources.size()), longest});
}

// The largest |a - b| over two tensors of the same shape.
double max_difference(const Tensor& a, const Tensor& b) {
  REQUIRE(a.shape() == b.shape());
  const std::vector<double> x = a.to_vector(), y = b.to_vector();
  double largest = 0;
  for (size_t i = 0; i < x.size(); ++i) largest = std::max(largest, std::abs(x[i] - y[i]));
  return largest;
}

}  // namespace

TEST_CASE("decode_step: each step's logits are Transformer::decode's at the last position",
          "[decoder_cache]") {
  NoGradGuard no_grad;
  for (const bool norm_first : {false, true}) {
    for (const bool tied : {false, true}) {
      INFO("norm_first " << norm_first << ", tied " << tied);
      auto model = random_model(7 + norm_first + 2 * tied, norm_first, tied);
      // Three sources of different lengths in one padded batch.
      const std::vector<std::vector<int64_t>> sources = {{4, 5, 6, 7, 8}, {9}, {1, 2, 3}};
      Tensor mask;
      const Tensor source = padded(sources, mask);
      const Variable memory = model->encode(source, mask);
      DecoderCache cache = start_decoding(*model, memory.value(), mask);
      REQUIRE(cache.rows() == 3);
      REQUIRE(cache.layers.size() == 2);
      // Teacher-forced prefixes: bos, then a fixed pattern of tokens per row.
      std::vector<std::vector<int64_t>> prefixes(3, {bos});
      for (int64_t step = 0; step < 10; ++step) {
        INFO("step " << step);
        std::vector<int64_t> newest;
        for (const auto& prefix : prefixes) newest.push_back(prefix.back());
        const Tensor cached = decode_step(*model, cache, newest);
        std::vector<int64_t> ids;
        for (const auto& prefix : prefixes) ids.insert(ids.end(), prefix.begin(), prefix.end());
        const int64_t t = step + 1;
        const Tensor logits =
            model->decode(Tensor::from_ids(ids, {3, t}), memory, causal_mask(t), mask).value();
        const Tensor last = logits.narrow(1, t - 1, 1).reshape({3, -1});
        CHECK(cached.shape() == Shape{3, 9});
        // Bit for bit: the same sums in the same order, one position instead of all of them.
        CHECK(max_difference(cached, last) == 0.0);
        CHECK(cache.length() == t);
        CHECK(cache.layers[1].self_attn.keys().shape() == Shape{3, 2, t, 4});
        for (int64_t r = 0; r < 3; ++r) prefixes[r].push_back(1 + (r * 5 + step * 3) % 8);
      }
    }
  }
}

TEST_CASE("DecoderCache::reorder keeps each row's keys and values with it", "[decoder_cache]") {
  NoGradGuard no_grad;
  auto model = random_model(21, false, false);
  const std::vector<std::vector<int64_t>> sources = {{4, 5, 6}, {7, 8}};
  Tensor mask;
  const Tensor source = padded(sources, mask);
  const Tensor memory = model->encode(source, mask).value();
  DecoderCache cache = start_decoding(*model, memory, mask, {.rows = 3});
  decode_step(*model, cache, {bos, bos});
  decode_step(*model, cache, {4, 5});
  // As beam search does: row 1 extended twice, row 0 once, in this order.
  const std::vector<int64_t> parents = {1, 0, 1};
  cache.reorder(parents);
  CHECK(cache.rows() == 3);
  const Tensor cached = decode_step(*model, cache, {6, 7, 8});
  // The same prefixes (bos 5 6, bos 4 7, bos 5 8) with their sources, uncached.
  const Tensor ids = Tensor::from_ids({bos, 5, 6, bos, 4, 7, bos, 5, 8}, {3, 3});
  const Tensor rows = Tensor::from_ids(parents, {3});
  const Tensor logits = model->decode(ids, Variable(index_select(memory, 0, rows)),
                                      causal_mask(3), index_select(mask, 0, rows))
                            .value();
  CHECK(max_difference(cached, logits.narrow(1, 2, 1).reshape({3, -1})) == 0.0);
  CHECK(cache.source_of_row == std::vector<int64_t>{1, 0, 1});

  // A reorder that keeps every row's source (rows 0 and 2 swap: both are source 1's) copies
  // only the self-attention keys and values; the result is still the reordered prefixes'.
  cache.reorder({2, 1, 0});
  CHECK(cache.source_of_row == std::vector<int64_t>{1, 0, 1});
  const Tensor swapped = decode_step(*model, cache, {4, 5, 6});
  const Tensor swapped_ids = Tensor::from_ids({bos, 5, 8, 4, bos, 4, 7, 5, bos, 5, 6, 6}, {3, 4});
  const Tensor swapped_logits = model->decode(swapped_ids, Variable(index_select(memory, 0, rows)),
                                              causal_mask(4), index_select(mask, 0, rows))
                                    .value();
  CHECK(max_difference(swapped, swapped_logits.narrow(1, 3, 1).reshape({3, -1})) == 0.0);
  CHECK_THROWS_WITH(cache.reorder({0, 3}),
                    Contains("DecoderCache::reorder: row 3 outside the cache's 3 rows"));
  CHECK_THROWS_WITH(cache.reorder({0, 1, 2, 0}),
                    Contains("DecoderCache::reorder: 4 rows do not fit the cache's 3"));
}

TEST_CASE("decode_step: the key/value buffers are allocated once, by start_decoding",
          "[decoder_cache]") {
  NoGradGuard no_grad;
  auto model = random_model(13, false, false);
  Tensor mask;
  const Tensor memory = model->encode(padded({{4, 5, 6}, {7}}, mask), mask).value();
  DecoderCache cache = start_decoding(*model, memory, mask, {.positions = 12, .rows = 4});
  REQUIRE(cache.capacity() == 12);
  // Where each layer's self-attention keys and values live: the same storage at every step.
  auto storages = [&] {
    std::vector<const void*> where;
    for (const LayerCache& layer : cache.layers)
      for (const Tensor& cached : {layer.self_attn.keys(), layer.self_attn.values(),
                                   layer.cross_attn.keys(), layer.cross_attn.values()})
        where.push_back(cached.storage()->data());
    return where;
  };
  // The bytes alive between steps (no module keeps a step's weights: nn/attention_observer.h).
  auto live_bytes = [] { return Storage::live_bytes(); };
  const std::vector<const void*> allocated = storages();
  decode_step(*model, cache, {bos, bos});
  // After a step only the cache is alive, and it has not grown: the next steps allocate nothing
  // that outlives them.
  const std::size_t live_after_first_step = live_bytes();
  for (int64_t t = 1; t < 12; ++t) {
    INFO("step " << t);
    decode_step(*model, cache, {4 + t % 5, 5});
    CHECK(storages() == allocated);
    CHECK(live_bytes() == live_after_first_step);
    CHECK(cache.layers[0].self_attn.keys().shape() == Shape{2, 2, t + 1, 4});
  }
  CHECK_THROWS_WITH(decode_step(*model, cache, {4, 5}),
                    Contains("decode_step: 2 tokens at position 12 for a cache of 2 rows and 12 "
                             "positions (the model's max_len 24)"));

  // Beam search's reorders gather into each cache's second buffer and swap the two: every
  // buffer seen is one of two, made by start_decoding.
  DecoderCache beams = start_decoding(*model, memory, mask, {.positions = 6, .rows = 4});
  std::vector<std::vector<const void*>> seen(8);
  auto record = [&] {
    size_t i = 0;
    for (const LayerCache& layer : beams.layers)
      for (const Tensor& cached : {layer.self_attn.keys(), layer.self_attn.values(),
                                   layer.cross_attn.keys(), layer.cross_attn.values()}) {
        auto& where = seen[i++];
        if (std::find(where.begin(), where.end(), cached.storage()->data()) == where.end())
          where.push_back(cached.storage()->data());
      }
  };
  const std::vector<std::vector<int64_t>> parents = {{0, 0, 1, 1}, {1, 0, 3, 2}, {0, 2, 3},
                                                     {2, 1, 0, 0}, {3, 1}};
  for (const auto& step_parents : parents) {
    decode_step(*model, beams, std::vector<int64_t>(beams.rows(), 4));
    beams.reorder(step_parents);
    record();
  }
  for (const auto& where : seen) CHECK(where.size() <= 2);
}

TEST_CASE("Transformer::decode with a cache: several positions at once, then one at a time",
          "[decoder_cache]") {
  // The one decoder forward fed a prefix of four ids at once (the causal mask over them), then
  // single ids: the logits of every position are those of the whole sequence without a cache.
  NoGradGuard no_grad;
  auto model = random_model(17, true, false);
  Tensor mask;
  const Tensor memory = model->encode(padded({{4, 5, 6, 7}, {8, 9}}, mask), mask).value();
  const std::vector<int64_t> ids = {bos, 4, 5, 6, 7, 8, bos, 8, 7, 6, 5, 4};  // [2, 6]
  const Tensor uncached =
      model->decode(Tensor::from_ids(ids, {2, 6}), Variable(memory), causal_mask(6), mask)
          .value();
  DecoderCache cache = start_decoding(*model, memory, mask);
  const Variable no_new_memory(Tensor::empty({2, 0, 8}));
  const Tensor prefix = Tensor::from_ids({bos, 4, 5, 6, bos, 8, 7, 6}, {2, 4});
  const Tensor first_four =
      model->decode(prefix, no_new_memory, causal_mask(4), cache.memory_mask, cache.layers)
          .value();
  CHECK(max_difference(first_four, uncached.narrow(1, 0, 4)) == 0.0);
  CHECK(cache.length() == 4);
  for (int64_t t = 4; t < 6; ++t) {
    const Tensor step = decode_step(*model, cache, {ids[t], ids[6 + t]});
    CHECK(max_difference(step, uncached.narrow(1, t, 1).reshape({2, -1})) == 0.0);
  }
}

TEST_CASE("decode_step: bad calls give clear errors", "[decoder_cache]") {
  NoGradGuard no_grad;
  auto model = random_model(5, false, false);
  Tensor mask;
  const Tensor memory = model->encode(padded({{4, 5}}, mask), mask).value();
  DecoderCache cache = start_decoding(*model, memory, mask);
  CHECK(cache.capacity() == 24);  // the model's max_len by default
  CHECK_THROWS_WITH(decode_step(*model, cache, {bos, bos}),
                    Contains("decode_step: 2 tokens at position 0 for a cache of 1 rows"));
  for (int64_t t = 0; t < 24; ++t) decode_step(*model, cache, {4});
  CHECK_THROWS_WITH(decode_step(*model, cache, {4}), Contains("position 24") &&
                                                         Contains("max_len 24"));
  CHECK_THROWS_WITH(start_decoding(*model, Tensor::zeros({1, 2, 5})),
                    Contains("start_decoding: memory [1, 2, 5]: expected [rows, S, 8]"));
}

namespace {

// Each step's logits [1, tgt_vocab] of decoding `source` alone (start_decoding, as
// decoding::decode does for a batch of one), feeding `tokens` one at a time.
std::vector<Tensor> logits_alone(Transformer& model, const std::vector<int64_t>& source,
                                 const std::vector<int64_t>& tokens) {
  Tensor mask;
  const Tensor ids = padded({source}, mask);
  DecoderCache cache = start_decoding(model, model.encode(ids, mask).value(), mask);
  std::vector<Tensor> steps;
  for (int64_t token : tokens) steps.push_back(decode_step(model, cache, {token}).contiguous());
  return steps;
}

// Encodes `sources` together (padded) and admits them as new rows of `cache`.
void admit(Transformer& model, DecoderCache& cache,
           const std::vector<std::vector<int64_t>>& sources) {
  Tensor mask;
  const Tensor ids = padded(sources, mask);
  std::vector<int64_t> lengths;
  for (const auto& source : sources) lengths.push_back(static_cast<int64_t>(source.size()));
  admit_rows(model, cache, model.encode(ids, mask).value(), lengths);
}

}  // namespace

TEST_CASE("continuous decoding: rows that join and leave at different steps get their logits alone, "
          "bit for bit",
          "[decoder_cache]") {
  NoGradGuard no_grad;
  const bool cpu_packs = cpu_features().avx2 && cpu_features().fma;
  for (const bool norm_first : {false, true})
  for (const bool packed : {false, true}) {
    if (packed && !cpu_packs) continue;  // packing is refused there (tests/tensor)
    INFO("norm_first " << norm_first << (packed ? ", weights packed once (translate, serve)" : ""));
    auto model = random_model(31 + norm_first, norm_first, false);
    // Sources of different lengths, each with the tokens it is fed (bos, then its own ids).
    const std::vector<std::vector<int64_t>> sources = {
        {4, 5, 6, 7, 8}, {9}, {1, 2, 3}, {10, 4, 4, 5, 6, 7, 1}, {7, 7}};
    const std::vector<std::vector<int64_t>> fed = {
        {bos, 4, 5, 6, 7, 8, 4}, {bos, 1}, {bos, 6, 6, 1, 5}, {bos, 8, 7, 6}, {bos, 4, 4, 4, 4, 4}};
    // Step at which each source joins: 0 and 1 together, 2 at step 2, 3 and 4 at step 3.
    const std::vector<int64_t> joins = {0, 0, 2, 3, 3};
    std::vector<std::vector<Tensor>> alone;
    for (size_t i = 0; i < sources.size(); ++i)
      alone.push_back(logits_alone(*model, sources[i], fed[i]));
    // Packed after the logits alone: the rows' products read the panels, alone read W.
    if (packed) use_packed_weights(*model);
    DecoderCache cache = start_continuous_decoding(*model, {.positions = 12, .rows = 4});
    std::vector<size_t> source_in_row, fed_so_far(sources.size(), 0);
    for (int64_t step = 0; step < 12; ++step) {
      std::vector<std::vector<int64_t>> joining;
      for (size_t i = 0; i < sources.size(); ++i)
        if (joins[i] == step) {
          joining.push_back(sources[i]);
          source_in_row.push_back(i);
        }
      if (!joining.empty()) admit(*model, cache, joining);
      if (source_in_row.empty()) break;
      std::vector<int64_t> tokens;
      for (size_t i : source_in_row) tokens.push_back(fed[i][fed_so_far[i]]);
      const Tensor logits = decode_step(*model, cache, tokens);
      for (size_t row = source_in_row.size(); row-- > 0;) {
        const size_t i = source_in_row[row];
        INFO("step " << step << ", source " << i << " in row " << row);
        CHECK(max_difference(logits.narrow(0, row, 1).contiguous(), alone[i][fed_so_far[i]]) == 0);
        if (++fed_so_far[i] < fed[i].size()) continue;
        cache.remove_row(static_cast<int64_t>(row));  // done: the last row takes its place
        source_in_row[row] = source_in_row.back();
        source_in_row.pop_back();
      }
    }
    CHECK(source_in_row.empty());
    for (size_t i = 0; i < sources.size(); ++i) CHECK(fed_so_far[i] == fed[i].size());
  }
}

TEST_CASE("continuous decoding: bad calls give clear errors", "[decoder_cache]") {
  NoGradGuard no_grad;
  auto model = random_model(5, false, false);
  DecoderCache cache = start_continuous_decoding(*model, {.positions = 6, .rows = 2});
  admit(*model, cache, {{4, 5}, {6}});
  CHECK_THROWS_WITH(admit(*model, cache, {{4}}),
                    Contains("KeyValueCache::append_rows: keys [1, 2, 1, 4], values [1, 2, 1, 4] "
                             "with 1 lengths to a cache of 2 rows (max_rows 2)"));
  CHECK_THROWS_WITH(cache.remove_row(2),
                    Contains("DecoderCache::remove_row: row 2 outside the cache's 2 rows"));
  CHECK_THROWS_WITH(admit_rows(*model, cache, Tensor::zeros({1, 2, 8}), {2, 1}),
                    Contains("admit_rows: memory [1, 2, 8] with 2 source lengths"));
  DecoderCache batch = start_decoding(*model, Tensor::zeros({1, 2, 8}));
  CHECK_THROWS_WITH(admit_rows(*model, batch, Tensor::zeros({1, 2, 8}), {2}),
                    Contains("a cache of start_continuous_decoding"));
}
