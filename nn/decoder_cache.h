// nn/decoder_cache.h — incremental decoding: keep each decoder layer's keys and values so that
// a new target token costs the work of one position, not of the whole prefix again.
// Lesson: docs/12-translation.md#the-key-value-cache
//
// Without a cache, step t of decoding runs the prefix y_0 .. y_t (t + 1 tokens) through every
// decoder layer, and so recomputes, for every earlier position, its embedding, its self-attention
// keys K = x W^K and values V = x W^V, its cross-attention query, its feed-forward, and the
// cross-attention keys and values memory W^K, memory W^V of the whole source. Yet with the causal
// mask nothing at position i < t depends on y_t: those states are the same as at the last step.
// With the cache, step t computes for the new position only:
//   self-attention   q_t, k_t, v_t from x_t; k_t, v_t written at position t of the cache's
//                    buffers; out = softmax(q_t Kᵀ / √d_k) V over K = [k_0; …; k_t], V likewise
//                    (no mask: no later token exists)
//   cross-attention  q_t from the decoder; K_mem, V_mem computed once per sentence
//   feed-forward     on x_t alone
// and only the new position's logits. There is one decoder forward: decode_step runs
// Transformer::decode with the cache (DecoderLayer::forward, nn/transformer.cpp, takes a
// LayerCache; MultiHeadAttention::forward a KeyValueCache, nn/key_value_cache.h). Its outputs are
// those of Transformer::decode's last position without the cache (the uncached path of
// examples/base/decoding/encoder_decoder.cpp is the reference; tests/nn/test_decoder_cache.cpp
// compares the two).
#pragma once

#include <cstdint>
#include <vector>

#include "nn/transformer.h"

namespace atencion::nn {

// How much a DecoderCache holds, allocated once by start_decoding (0: the default).
struct CacheCapacity {
  int64_t positions = 0;  // target positions; 0 or more than the model's max_len: max_len
  int64_t rows = 0;       // rows after any reorder (beam search: sources × beam); 0: memory's
};

struct DecoderCache {
  std::vector<LayerCache> layers;  // one per decoder layer
  Tensor memory_mask;              // [rows, 1, 1, S] Bool (true = real source token), or none
  // The memory row each row's cross keys, values and mask came from. Rows of the same source
  // hold the same cross keys and values, so a reorder that keeps every row's source (a beam
  // step where each sentence keeps its number of hypotheses) need not copy them.
  std::vector<int64_t> source_of_row;
  // Rows that joined at different steps (start_continuous_decoding): each row's self-attention
  // sees its own positions and its cross-attention its own source's, masks made each step from
  // the caches' row lengths (memory_mask is then unused).
  bool per_row = false;

  int64_t rows() const;
  int64_t length() const;    // tokens fed so far: the position of the next one
  int64_t capacity() const;  // positions the buffers hold
  // Keeps the rows `parents` in that order (repeats allowed, e.g. one hypothesis extended twice):
  // beam search calls this when it reorders its hypotheses. Gathers into the caches' spare
  // buffers (KeyValueCache::reorder): nothing is allocated for the keys and values.
  void reorder(const std::vector<int64_t>& parents);
  // Drops row `row` (a finished request): the last row moves into its place.
  void remove_row(int64_t row);
};

// A cache for `memory` [rows, S, d_model] (Transformer::encode's output) with its padding mask
// (padding_mask(lengths, S), or an undefined Tensor): allocates every layer's key/value buffers
// for `capacity` and computes the cross-attention keys and values once. Nothing is decoded yet
// (length 0). Under NoGradGuard, as decode_step.
DecoderCache start_decoding(Transformer& model, const Tensor& memory,
                            const Tensor& memory_mask = Tensor(),
                            const CacheCapacity& capacity = {});

// Continuous (step-level) batching, docs/17-serving.md#under-load: a cache with no row yet, room
// for capacity.rows rows (at least 1) of capacity.positions target positions and sources of up
// to the model's max_len, whose rows join (admit_rows) and leave (DecoderCache::remove_row)
// between steps. Its buffers are zeroed once (nn/key_value_cache.h says why).
DecoderCache start_continuous_decoding(Transformer& model, const CacheCapacity& capacity,
                                       DType dtype = DType::Float32);
// Adds memory.size(0) rows after the others, row i for memory[i] (Transformer::encode's output
// [n, S, d_model]) whose first source_lengths[i] positions are real: their cross-attention keys
// and values are computed now; nothing is decoded for them yet (each row's own length 0).
void admit_rows(Transformer& model, DecoderCache& cache, const Tensor& memory,
                const std::vector<int64_t>& source_lengths);

// Feeds one token per row (tokens.size() == cache.rows()) at position cache.length() and returns
// the logits of the next token [rows, tgt_vocab]: equal to Transformer::decode's last position
// for the whole prefix. Writes the new keys and values into the cache. Inference only (no
// dropout, no graph): call it in eval mode under NoGradGuard, as decoding::decode does (examples/base/decoding/). Throws when
// the cache is full (capacity().positions, at most the model's max_len). `observer` (optional,
// nn/attention_observer.h) gets each decoder layer's self- and cross-attention weights of the new
// position, [rows, heads, 1, keys]: the self-attention's keys are the positions fed so far, the
// cross-attention's the memory's S (padded ones weigh 0). In a per_row cache each row's token
// goes at its own position and its logits are those of decoding it alone.
Tensor decode_step(Transformer& model, DecoderCache& cache, const std::vector<int64_t>& tokens,
                   AttentionObserver* observer = nullptr);

}  // namespace atencion::nn
