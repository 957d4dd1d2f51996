// nn/decoder_cache.cpp — making, stepping and reordering the decoder's key/value cache; the step
// itself is Transformer::decode with the cache (one decoder forward). See decoder_cache.h.
// Lesson: docs/12-translation.md#the-key-value-cache
#include "nn/decoder_cache.h"

#include <algorithm>
#include <numeric>
#include <stdexcept>
#include <string>

#include "autograd/ops.h"
#include "nn/heads.h"

namespace atencion::nn {

int64_t DecoderCache::rows() const { return layers.empty() ? 0 : layers[0].self_attn.rows(); }

int64_t DecoderCache::length() const {
  return layers.empty() ? 0 : layers[0].self_attn.length();
}

int64_t DecoderCache::capacity() const {
  return layers.empty() ? 0 : layers[0].self_attn.capacity();
}

void DecoderCache::reorder(const std::vector<int64_t>& parents) {
  const int64_t max_rows = layers.empty() ? 0 : layers[0].self_attn.max_rows();
  if (static_cast<int64_t>(parents.size()) > max_rows)
    throw std::invalid_argument("DecoderCache::reorder: " + std::to_string(parents.size()) +
                                " rows do not fit the cache's " + std::to_string(max_rows) +
                                " (start_decoding's capacity.rows)");
  std::vector<int64_t> sources;
  for (int64_t parent : parents) {
    if (parent < 0 || parent >= static_cast<int64_t>(source_of_row.size()))
      throw std::out_of_range("DecoderCache::reorder: row " + std::to_string(parent) +
                              " outside the cache's " + std::to_string(source_of_row.size()) +
                              " rows");
    sources.push_back(source_of_row[parent]);
  }
  const bool same_sources = sources == source_of_row;
  for (LayerCache& layer : layers) {
    layer.self_attn.reorder(parents);
    if (!same_sources) layer.cross_attn.reorder(parents);
  }
  if (memory_mask.defined() && !same_sources)
    memory_mask = index_select(memory_mask, 0,
                               Tensor::from_ids(parents, {static_cast<int64_t>(parents.size())}));
  source_of_row = std::move(sources);
}

DecoderCache start_decoding(Transformer& model, const Tensor& memory, const Tensor& memory_mask,
                            const CacheCapacity& capacity) {
  const int64_t max_len = model.config().max_len;
  if (memory.dim() != 3 || memory.size(2) != model.config().d_model)
    throw std::invalid_argument("start_decoding: memory " + shape_to_string(memory.shape()) +
                                ": expected [rows, S, " + std::to_string(model.config().d_model) +
                                "]");
  const int64_t rows = memory.size(0), source_length = memory.size(1);
  const int64_t positions =
      capacity.positions > 0 ? std::min(capacity.positions, max_len) : max_len;
  const int64_t max_rows = std::max(rows, capacity.rows);
  DecoderCache cache;
  cache.memory_mask = memory_mask;
  cache.source_of_row.resize(rows);
  std::iota(cache.source_of_row.begin(), cache.source_of_row.end(), 0);
  const Variable memory_variable(memory);
  for (auto& layer : model.decoder->layers) {
    const MultiHeadAttention& self = *layer->self_attn;
    const MultiHeadAttention& cross = *layer->cross_attn;
    LayerCache layer_cache{
        KeyValueCache(rows, max_rows, self.heads(), positions, self.head_dim(), memory.dtype()),
        KeyValueCache(rows, max_rows, cross.heads(), source_length, cross.head_dim(),
                      memory.dtype())};
    // memory W^K and memory W^V, split into heads: the same at every step, so made once.
    layer_cache.cross_attn.extend(split_heads((*cross.k_proj)(memory_variable), cross.heads()),
                                  split_heads((*cross.v_proj)(memory_variable), cross.heads()));
    cache.layers.push_back(std::move(layer_cache));
  }
  return cache;
}

Tensor decode_step(Transformer& model, DecoderCache& cache, const std::vector<int64_t>& tokens,
                   AttentionObserver* observer) {
  const int64_t rows = static_cast<int64_t>(tokens.size());
  const int64_t position = cache.length();
  if (rows != cache.rows() || position >= cache.capacity())
    throw std::invalid_argument(
        "decode_step: " + std::to_string(rows) + " tokens at position " +
        std::to_string(position) + " for a cache of " + std::to_string(cache.rows()) +
        " rows and " + std::to_string(cache.capacity()) + " positions (the model's max_len " +
        std::to_string(model.config().max_len) + ")");
  // Every memory position is in the cache already (start_decoding put them there): none is new.
  const Variable no_new_memory(
      Tensor::empty({rows, 0, model.config().d_model}, cache.layers[0].cross_attn.keys().dtype()));
  // One new position per row: it may see itself and every cached position, so no target mask.
  const Variable logits = model.decode(Tensor::from_ids(tokens, {rows, 1}), no_new_memory,
                                       Tensor(), cache.memory_mask, cache.layers, observer);
  return logits.value().reshape({rows, -1});
}

}  // namespace atencion::nn
