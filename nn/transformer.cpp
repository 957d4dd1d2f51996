// nn/transformer.cpp — Lesson: docs/10-transformer.md
#include "nn/transformer.h"

#include <cmath>
#include <sstream>
#include <stdexcept>

#include "autograd/ops.h"

namespace atencion::nn {
namespace {

// torch.nn.Transformer's _reset_parameters: every matrix of the encoder and decoder drawn from
// Xavier-uniform U(−b, b), b = √(6 / (fan_in + fan_out)). The q/k/v projections keep the draw
// MultiHeadAttention already made over torch's packed [3d, d] in_proj_weight (the same rule).
void xavier_uniform_matrices(const Module& module, Generator& generator) {
  for (auto& [name, parameter] : module.named_parameters()) {
    if (parameter.dim() < 2 || name.ends_with("q_proj.weight") ||
        name.ends_with("k_proj.weight") || name.ends_with("v_proj.weight"))
      continue;
    const int64_t fan_out = parameter.size(0), fan_in = parameter.size(1);
    const double bound = std::sqrt(6.0 / static_cast<double>(fan_in + fan_out));
    Variable handle = parameter;
    handle.mutable_value() = uniform(parameter.shape(), -bound, bound, generator, parameter.dtype());
  }
}

std::shared_ptr<MultiHeadAttention> make_attention(const TransformerLayerConfig& c,
                                                   Generator& generator) {
  MultiHeadAttentionOptions options;
  options.dropout = c.dropout;
  return std::make_shared<MultiHeadAttention>(c.d_model, c.heads, options, generator);
}

std::string layer_description(const char* kind, const TransformerLayerConfig& c) {
  std::ostringstream text;
  text << kind << "(d_model=" << c.d_model << ", heads=" << c.heads << ", d_ff=" << c.d_ff
       << ", dropout=" << c.dropout << ", " << (c.norm_first ? "pre-norm" : "post-norm") << ")";
  return text.str();
}

}  // namespace

// ---- EncoderLayer -----------------------------------------------------------------------------

EncoderLayer::EncoderLayer(const TransformerLayerConfig& c, Generator& generator)
    : norm_first_(c.norm_first) {
  self_attn = register_module("self_attn", make_attention(c, generator));
  feed_forward = register_module(
      "feed_forward", std::make_shared<FeedForward>(c.d_model, c.d_ff, c.dropout, generator, c.activation));
  norm1 = register_module("norm1", std::make_shared<LayerNorm>(c.d_model, c.layer_norm_eps));
  norm2 = register_module("norm2", std::make_shared<LayerNorm>(c.d_model, c.layer_norm_eps));
  dropout1 = register_module("dropout1", std::make_shared<Dropout>(c.dropout, generator));
  dropout2 = register_module("dropout2", std::make_shared<Dropout>(c.dropout, generator));
}

std::string EncoderLayer::type_name() const {
  return layer_description("EncoderLayer", {self_attn->d_model(), self_attn->heads(),
                                            feed_forward->linear1->out_features(),
                                            dropout1->p(), norm_first_});
}

Variable EncoderLayer::forward(const Variable& x, const Tensor& mask, KeyValueCache* cache,
                               AttentionObserver* observer) {
  if (norm_first_) {
    // Pre-norm: x + Dropout(Sublayer(LayerNorm(x))), for each of the two sublayers.
    const Variable normed = (*norm1)(x);
    const Variable attended = x + (*dropout1)((*self_attn)(normed, normed, normed, mask, cache, observer));
    return attended + (*dropout2)((*feed_forward)((*norm2)(attended)));
  }
  // Post-norm (the paper): LayerNorm(x + Dropout(Sublayer(x))).
  const Variable attended = (*norm1)(x + (*dropout1)((*self_attn)(x, x, x, mask, cache, observer)));
  return (*norm2)(attended + (*dropout2)((*feed_forward)(attended)));
}

// ---- DecoderLayer -----------------------------------------------------------------------------

DecoderLayer::DecoderLayer(const TransformerLayerConfig& c, Generator& generator)
    : norm_first_(c.norm_first) {
  self_attn = register_module("self_attn", make_attention(c, generator));
  cross_attn = register_module("cross_attn", make_attention(c, generator));
  feed_forward = register_module(
      "feed_forward", std::make_shared<FeedForward>(c.d_model, c.d_ff, c.dropout, generator, c.activation));
  norm1 = register_module("norm1", std::make_shared<LayerNorm>(c.d_model, c.layer_norm_eps));
  norm2 = register_module("norm2", std::make_shared<LayerNorm>(c.d_model, c.layer_norm_eps));
  norm3 = register_module("norm3", std::make_shared<LayerNorm>(c.d_model, c.layer_norm_eps));
  dropout1 = register_module("dropout1", std::make_shared<Dropout>(c.dropout, generator));
  dropout2 = register_module("dropout2", std::make_shared<Dropout>(c.dropout, generator));
  dropout3 = register_module("dropout3", std::make_shared<Dropout>(c.dropout, generator));
}

std::string DecoderLayer::type_name() const {
  return layer_description("DecoderLayer", {self_attn->d_model(), self_attn->heads(),
                                            feed_forward->linear1->out_features(),
                                            dropout1->p(), norm_first_});
}

Variable DecoderLayer::forward(const Variable& x, const Variable& memory,
                               const Tensor& target_mask, const Tensor& memory_mask,
                               LayerCache* cache, AttentionObserver* observer) {
  // Training: no cache, every key and value is computed here. Decoding: each attention writes
  // the new positions' keys and values into its cache and attends to all of the cached ones.
  KeyValueCache* self_cache = cache ? &cache->self_attn : nullptr;
  KeyValueCache* cross_cache = cache ? &cache->cross_attn : nullptr;
  if (norm_first_) {
    // Pre-norm: x + Dropout(Sublayer(LayerNorm(x))); memory enters cross-attention as it is
    // (the encoder's final LayerNorm has already normalised it).
    const Variable normed = (*norm1)(x);
    const Variable attended =
        x + (*dropout1)((*self_attn)(normed, normed, normed, target_mask, self_cache, observer));
    const Variable attended_normed = (*norm2)(attended);
    const Variable crossed =
        attended + (*dropout2)((*cross_attn)(attended_normed, memory, memory, memory_mask,
                                             cross_cache, observer));
    return crossed + (*dropout3)((*feed_forward)((*norm3)(crossed)));
  }
  // Post-norm (the paper): LayerNorm(x + Dropout(Sublayer(x))) three times.
  // 1. masked self-attention: each target position sees itself and the positions before it.
  const Variable attended =
      (*norm1)(x + (*dropout1)((*self_attn)(x, x, x, target_mask, self_cache, observer)));
  // 2. encoder-decoder attention: queries from the decoder, keys and values from the memory.
  const Variable crossed = (*norm2)(
      attended + (*dropout2)((*cross_attn)(attended, memory, memory, memory_mask, cross_cache,
                                              observer)));
  // 3. feed-forward, position by position.
  return (*norm3)(crossed + (*dropout3)((*feed_forward)(crossed)));
}

// ---- Encoder, Decoder -------------------------------------------------------------------------

Encoder::Encoder(const TransformerLayerConfig& c, int64_t layer_count, Generator& generator) {
  if (layer_count < 1)
    throw std::invalid_argument("Encoder: layer count " + std::to_string(layer_count) +
                                " must be >= 1");
  for (int64_t i = 0; i < layer_count; ++i)
    layers.push_back(register_module("layers." + std::to_string(i),
                                     std::make_shared<EncoderLayer>(c, generator)));
  if (c.norm_first || c.final_norm)
    norm = register_module("norm", std::make_shared<LayerNorm>(c.d_model, c.layer_norm_eps));
}

std::string Encoder::type_name() const {
  return "Encoder(layers=" + std::to_string(layers.size()) + ")";
}

Variable Encoder::forward(const Variable& x, const Tensor& mask, AttentionObserver* observer) {
  Variable hidden = x;
  for (auto& layer : layers) hidden = layer->forward(hidden, mask, nullptr, observer);
  return norm ? (*norm)(hidden) : hidden;
}

Decoder::Decoder(const TransformerLayerConfig& c, int64_t layer_count, Generator& generator) {
  if (layer_count < 1)
    throw std::invalid_argument("Decoder: layer count " + std::to_string(layer_count) +
                                " must be >= 1");
  for (int64_t i = 0; i < layer_count; ++i)
    layers.push_back(register_module("layers." + std::to_string(i),
                                     std::make_shared<DecoderLayer>(c, generator)));
  if (c.norm_first || c.final_norm)
    norm = register_module("norm", std::make_shared<LayerNorm>(c.d_model, c.layer_norm_eps));
}

std::string Decoder::type_name() const {
  return "Decoder(layers=" + std::to_string(layers.size()) + ")";
}

Variable Decoder::forward(const Variable& x, const Variable& memory, const Tensor& target_mask,
                          const Tensor& memory_mask, std::span<LayerCache> cache,
                          AttentionObserver* observer) {
  if (!cache.empty() && cache.size() != layers.size())
    throw std::invalid_argument("Decoder::forward: a cache of " + std::to_string(cache.size()) +
                                " layers for a decoder of " + std::to_string(layers.size()));
  Variable hidden = x;
  for (size_t l = 0; l < layers.size(); ++l)
    hidden = layers[l]->forward(hidden, memory, target_mask, memory_mask,
                                cache.empty() ? nullptr : &cache[l], observer);
  return norm ? (*norm)(hidden) : hidden;
}

// ---- Transformer ------------------------------------------------------------------------------

Transformer::Transformer(const TransformerConfig& c, Generator& generator) : config_(c) {
  if (c.src_vocab < 1 || c.tgt_vocab < 1 || c.d_model < 1 || c.heads < 1 || c.d_ff < 1 ||
      c.max_len < 1 || c.d_model % c.heads != 0)
    throw std::invalid_argument(
        "Transformer: src_vocab " + std::to_string(c.src_vocab) + ", tgt_vocab " +
        std::to_string(c.tgt_vocab) + ", d_model " + std::to_string(c.d_model) + ", heads " +
        std::to_string(c.heads) + ", d_ff " + std::to_string(c.d_ff) + ", max_len " +
        std::to_string(c.max_len) + ": sizes must be >= 1 and d_model a multiple of heads");
  src_embedding = register_module(
      "src_embedding", std::make_shared<Embedding>(c.src_vocab, c.d_model, c.padding_idx, generator));
  tgt_embedding = register_module(
      "tgt_embedding", std::make_shared<Embedding>(c.tgt_vocab, c.d_model, c.padding_idx, generator));
  positional_encoding = register_module(
      "positional_encoding",
      std::make_shared<PositionalEncoding>(c.d_model, c.max_len, c.dropout, generator));
  encoder = register_module("encoder",
                            std::make_shared<Encoder>(c.layer(), c.encoder_layers, generator));
  decoder = register_module("decoder",
                            std::make_shared<Decoder>(c.layer(), c.decoder_layers, generator));
  if (!c.tie_target_embeddings)
    output_projection = register_module(
        "output_projection", std::make_shared<Linear>(c.d_model, c.tgt_vocab, generator));

  xavier_uniform_matrices(*encoder, generator);
  xavier_uniform_matrices(*decoder, generator);
  // N(0, 1) → N(0, 1/d_model): times √d_model in embed_*(), the inputs have unit variance.
  const double embedding_std = 1.0 / std::sqrt(static_cast<double>(c.d_model));
  for (Embedding* embedding : {src_embedding.get(), tgt_embedding.get()})
    embedding->weight.mutable_value() = mul(embedding->weight.value(), embedding_std);
}

std::string Transformer::type_name() const {
  std::ostringstream text;
  text << "Transformer(src_vocab=" << config_.src_vocab << ", tgt_vocab=" << config_.tgt_vocab
       << ", d_model=" << config_.d_model << ", heads=" << config_.heads
       << ", layers=" << config_.encoder_layers << "+" << config_.decoder_layers
       << ", d_ff=" << config_.d_ff << ", " << (config_.norm_first ? "pre-norm" : "post-norm")
       << (config_.final_norm && !config_.norm_first ? " with final norms" : "")
       << (config_.tie_target_embeddings ? ", tied output" : "") << ")";
  return text.str();
}

Variable Transformer::embed_source(const Tensor& source) {
  const double scale = std::sqrt(static_cast<double>(config_.d_model));
  return (*positional_encoding)((*src_embedding)(source) * scale);
}

Variable Transformer::embed_target(const Tensor& target, int64_t first_position) {
  const double scale = std::sqrt(static_cast<double>(config_.d_model));
  return (*positional_encoding)((*tgt_embedding)(target) * scale, first_position);
}

Variable Transformer::embed_target(const Tensor& target, const std::vector<int64_t>& first_positions) {
  const double scale = std::sqrt(static_cast<double>(config_.d_model));
  return positional_encoding->forward((*tgt_embedding)(target) * scale, first_positions);
}

Variable Transformer::project(const Variable& decoder_output) const {
  if (output_projection) return (*output_projection)(decoder_output);
  // Tied: logits = h · Eᵀ with E the target embedding matrix [tgt_vocab, d_model].
  return matmul(decoder_output, tgt_embedding->weight, Trans::No, Trans::Yes);
}

Variable Transformer::encode(const Tensor& source, const Tensor& source_mask,
                             AttentionObserver* observer) {
  if (source.dim() != 2)
    throw std::invalid_argument("Transformer::encode: source " + shape_to_string(source.shape()) +
                                ": expected ids [batch, S]");
  return encoder->forward(embed_source(source), source_mask, observer);
}

Variable Transformer::decode_states(const Tensor& target, const Variable& memory,
                                    const Tensor& target_mask, const Tensor& memory_mask,
                                    std::span<LayerCache> cache, AttentionObserver* observer) {
  if (target.dim() != 2 || memory.dim() != 3 || memory.size(0) != target.size(0))
    throw std::invalid_argument("Transformer::decode: target " + shape_to_string(target.shape()) +
                                ", memory " + shape_to_string(memory.shape()) +
                                ": expected ids [batch, T] and memory [batch, S, d_model]");
  // With a cache, each row's first id comes after the positions the cache holds for it.
  if (!cache.empty() && cache.front().self_attn.ragged())
    return decoder->forward(embed_target(target, cache.front().self_attn.row_lengths()), memory,
                            target_mask, memory_mask, cache, observer);
  const int64_t first_position = cache.empty() ? 0 : cache.front().self_attn.length();
  return decoder->forward(embed_target(target, first_position), memory, target_mask, memory_mask,
                          cache, observer);
}

Variable Transformer::decode(const Tensor& target, const Variable& memory,
                             const Tensor& target_mask, const Tensor& memory_mask,
                             std::span<LayerCache> cache, AttentionObserver* observer) {
  return project(decode_states(target, memory, target_mask, memory_mask, cache, observer));
}

Variable Transformer::projected_cross_entropy(const Variable& decoder_output,
                                              const Tensor& targets,
                                              const CrossEntropyOptions& options) const {
  if (output_projection)
    return linear_cross_entropy(decoder_output, output_projection->weight,
                                output_projection->bias, targets, options);
  return linear_cross_entropy(decoder_output, tgt_embedding->weight, Variable(), targets,
                              options);
}

Variable Transformer::forward(const Tensor& source, const Tensor& target,
                              const Tensor& source_mask, const Tensor& target_mask,
                              const Tensor& memory_mask, AttentionObserver* observer) {
  const Variable memory = encode(source, source_mask, observer);
  return decode(target, memory, target_mask, memory_mask, {}, observer);
}

}  // namespace atencion::nn
