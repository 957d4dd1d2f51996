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
#include "nn/masks.h"

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

void DecoderCache::remove_row(int64_t row) {
  if (row < 0 || row >= static_cast<int64_t>(source_of_row.size()))
    throw std::out_of_range("DecoderCache::remove_row: row " + std::to_string(row) +
                            " outside the cache's " + std::to_string(source_of_row.size()) +
                            " rows");
  for (LayerCache& layer : layers) {
    layer.self_attn.remove_row(row);
    layer.cross_attn.remove_row(row);
  }
  source_of_row[row] = source_of_row.back();
  source_of_row.pop_back();
}

DecoderCache start_continuous_decoding(Transformer& model, const CacheCapacity& capacity,
                                       DType dtype) {
  const int64_t max_len = model.config().max_len;
  const int64_t positions =
      capacity.positions > 0 ? std::min(capacity.positions, max_len) : max_len;
  const int64_t max_rows = std::max<int64_t>(1, capacity.rows);
  DecoderCache cache;
  cache.per_row = true;
  for (auto& layer : model.decoder->layers) {
    const MultiHeadAttention& self = *layer->self_attn;
    const MultiHeadAttention& cross = *layer->cross_attn;
    cache.layers.push_back(
        {KeyValueCache(0, max_rows, self.heads(), positions, self.head_dim(), dtype, true),
         KeyValueCache(0, max_rows, cross.heads(), max_len, cross.head_dim(), dtype, true)});
  }
  return cache;
}

void admit_rows(Transformer& model, DecoderCache& cache, const Tensor& memory,
                const std::vector<int64_t>& source_lengths) {
  if (!cache.per_row || memory.dim() != 3 || memory.size(2) != model.config().d_model ||
      static_cast<int64_t>(source_lengths.size()) != memory.size(0))
    throw std::invalid_argument("admit_rows: memory " + shape_to_string(memory.shape()) + " with " +
                                std::to_string(source_lengths.size()) +
                                " source lengths: expected [rows, S, " +
                                std::to_string(model.config().d_model) +
                                "], one length each, and a cache of start_continuous_decoding");
  const int64_t added = memory.size(0);
  const Variable memory_variable(memory);
  for (size_t l = 0; l < cache.layers.size(); ++l) {
    const MultiHeadAttention& self = *model.decoder->layers[l]->self_attn;
    const MultiHeadAttention& cross = *model.decoder->layers[l]->cross_attn;
    // memory W^K and memory W^V, split into heads, of the new rows only.
    cache.layers[l].cross_attn.append_rows(
        split_heads((*cross.k_proj)(memory_variable), cross.heads()).value(),
        split_heads((*cross.v_proj)(memory_variable), cross.heads()).value(), source_lengths);
    const Tensor none = Tensor::empty({added, self.heads(), 0, self.head_dim()}, memory.dtype());
    cache.layers[l].self_attn.append_rows(none, none, std::vector<int64_t>(added, 0));
  }
  for (int64_t i = 0; i < added; ++i)
    cache.source_of_row.push_back(static_cast<int64_t>(cache.source_of_row.size()));
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
  // One new position per row: it may see itself and every cached position, so no target mask;
  // rows at different lengths (per_row) see their own positions and source only.
  Tensor target_mask, memory_mask = cache.memory_mask;
  if (cache.per_row) {
    const KeyValueCache& self = cache.layers[0].self_attn;
    const KeyValueCache& cross = cache.layers[0].cross_attn;
    std::vector<int64_t> seen = self.row_lengths();
    for (int64_t& length : seen) ++length;  // with the new position
    if (self.ragged()) target_mask = padding_mask(seen, position + 1);
    memory_mask = padding_mask(cross.row_lengths(), cross.length());
  }
  const Variable logits = model.decode(Tensor::from_ids(tokens, {rows, 1}), no_new_memory,
                                       target_mask, memory_mask, cache.layers, observer);
  return logits.value().reshape({rows, -1});
}

}  // namespace atencion::nn
