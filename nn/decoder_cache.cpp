// nn/decoder_cache.cpp — one decoder step for the newest position only; see decoder_cache.h.
// Lesson: docs/12-translation.md#the-key-value-cache
//
// The step repeats DecoderLayer::forward (nn/transformer.cpp) line for line with two changes:
// the input is one position [rows, 1, d_model], and both attentions read their keys and values
// from the cache instead of projecting them again. Dropout is left out (inference only).
#include "nn/decoder_cache.h"

#include <cmath>
#include <numeric>
#include <stdexcept>
#include <string>

#include "autograd/ops.h"
#include "nn/heads.h"

namespace atencion::nn {
namespace {

// x W (+ b), split into heads: [rows, tokens, d_model] -> [rows, heads, tokens, head_dim].
Tensor project_heads(const Linear& projection, const Variable& x, int64_t heads) {
  return split_heads(projection(x), heads).value().contiguous();
}

// MultiHead(q, K, V) for queries `query` [rows, 1, d_model] against keys and values already
// projected and split ([rows, heads, tokens, head_dim]): project q, attend, concat, project.
Variable attend_cached(MultiHeadAttention& attention, const Variable& query, const Tensor& keys,
                       const Tensor& values, const Tensor& mask) {
  const Variable query_heads = split_heads((*attention.q_proj)(query), attention.heads());
  const Variable head_outputs =
      (*attention.attention)(query_heads, Variable(keys), Variable(values), mask);
  return (*attention.out_proj)(merge_heads(head_outputs));
}

// Self-attention of the new position over every position so far: its own k_t, v_t are
// appended to the cache first (K = [K_cache; k_t], V = [V_cache; v_t], along the tokens' dim).
Variable attend_self(MultiHeadAttention& attention, const Variable& x, LayerCache& cache) {
  const Tensor key = project_heads(*attention.k_proj, x, attention.heads());
  const Tensor value = project_heads(*attention.v_proj, x, attention.heads());
  cache.self_keys = cache.self_keys.defined() ? cat({cache.self_keys, key}, 2) : key;
  cache.self_values = cache.self_values.defined() ? cat({cache.self_values, value}, 2) : value;
  // No mask: the cache holds only positions <= t, which is all the causal mask would allow.
  return attend_cached(attention, x, cache.self_keys, cache.self_values, Tensor());
}

// DecoderLayer::forward for one position, in eval mode (the dropouts are the identity).
Variable layer_step(DecoderLayer& layer, bool norm_first, const Variable& x, LayerCache& cache,
                    const Tensor& memory_mask) {
  if (norm_first) {
    const Variable normed = (*layer.norm1)(x);
    const Variable attended = x + attend_self(*layer.self_attn, normed, cache);
    const Variable crossed =
        attended + attend_cached(*layer.cross_attn, (*layer.norm2)(attended), cache.cross_keys,
                                 cache.cross_values, memory_mask);
    return crossed + (*layer.feed_forward)((*layer.norm3)(crossed));
  }
  const Variable attended = (*layer.norm1)(x + attend_self(*layer.self_attn, x, cache));
  const Variable crossed =
      (*layer.norm2)(attended + attend_cached(*layer.cross_attn, attended, cache.cross_keys,
                                              cache.cross_values, memory_mask));
  return (*layer.norm3)(crossed + (*layer.feed_forward)(crossed));
}

}  // namespace

int64_t DecoderCache::rows() const {
  return layers.empty() || !layers[0].cross_keys.defined() ? 0 : layers[0].cross_keys.size(0);
}

void DecoderCache::reorder(const std::vector<int64_t>& parents) {
  const Tensor ids = Tensor::from_ids(parents, {static_cast<int64_t>(parents.size())});
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
    for (Tensor* cached : {&layer.self_keys, &layer.self_values})
      if (cached->defined()) *cached = index_select(*cached, 0, ids);
    if (same_sources) continue;
    layer.cross_keys = index_select(layer.cross_keys, 0, ids);
    layer.cross_values = index_select(layer.cross_values, 0, ids);
  }
  if (memory_mask.defined() && !same_sources) memory_mask = index_select(memory_mask, 0, ids);
  source_of_row = std::move(sources);
}

DecoderCache start_decoding(Transformer& model, const Tensor& memory, const Tensor& memory_mask) {
  if (memory.dim() != 3 || memory.size(2) != model.config().d_model)
    throw std::invalid_argument("start_decoding: memory " + shape_to_string(memory.shape()) +
                                ": expected [rows, S, " + std::to_string(model.config().d_model) +
                                "]");
  DecoderCache cache;
  cache.memory_mask = memory_mask;
  cache.source_of_row.resize(memory.size(0));
  std::iota(cache.source_of_row.begin(), cache.source_of_row.end(), 0);
  const Variable memory_variable(memory);
  for (auto& layer : model.decoder->layers) {
    // memory W^K and memory W^V: the same at every step, so made once per sentence.
    const MultiHeadAttention& cross = *layer->cross_attn;
    LayerCache layer_cache;
    layer_cache.cross_keys = project_heads(*cross.k_proj, memory_variable, cross.heads());
    layer_cache.cross_values = project_heads(*cross.v_proj, memory_variable, cross.heads());
    cache.layers.push_back(std::move(layer_cache));
  }
  return cache;
}

Tensor decode_step(Transformer& model, DecoderCache& cache, const std::vector<int64_t>& tokens) {
  const int64_t rows = static_cast<int64_t>(tokens.size());
  const int64_t position = cache.length;
  const PositionalEncoding& encoding = *model.positional_encoding;
  if (rows != cache.rows() || position >= encoding.max_len())
    throw std::invalid_argument("decode_step: " + std::to_string(rows) + " tokens at position " +
                                std::to_string(position) + " for a cache of " +
                                std::to_string(cache.rows()) + " rows and max_len " +
                                std::to_string(encoding.max_len()));
  // Embedding·√d_model + PE[t], as Transformer::embed_target for the one new position.
  const double scale = std::sqrt(static_cast<double>(model.config().d_model));
  const Variable embedded = (*model.tgt_embedding)(Tensor::from_ids(tokens, {rows, 1})) * scale;
  const Tensor pe_row = encoding.table().narrow(0, position, 1).to(embedded.dtype());
  Variable hidden = embedded + Variable(pe_row);

  const bool norm_first = model.config().norm_first;
  auto& layers = model.decoder->layers;
  for (size_t l = 0; l < layers.size(); ++l)
    hidden = layer_step(*layers[l], norm_first, hidden, cache.layers[l], cache.memory_mask);
  if (model.decoder->norm) hidden = (*model.decoder->norm)(hidden);
  cache.length = position + 1;
  return model.project(hidden).value().reshape({rows, -1});
}

}  // namespace atencion::nn
