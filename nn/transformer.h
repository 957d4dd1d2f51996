// nn/transformer.h — the encoder-decoder Transformer of "Attention Is All You Need" (§3).
// Lesson: docs/10-transformer.md
//
//   source ids ─ Embedding·√d ─ +PE ─ Encoder (N × EncoderLayer) ─────────── memory
//   target ids ─ Embedding·√d ─ +PE ─ Decoder (N × DecoderLayer, uses memory) ─ Linear ─ logits
//
// The three attentions of the notebooks, each a MultiHeadAttention (nn/multi_head_attention.h):
//   EncoderLayer::self_attn    encoder self-attention: q = k = v = the source tokens (003)
//   DecoderLayer::self_attn    masked self-attention: the causal mask hides later targets (000)
//   DecoderLayer::cross_attn   encoder-decoder attention: q from the decoder, k = v = memory (001)
//
// Where the LayerNorm goes (the Annotated Transformer's prose and code disagreed on this):
//   post-norm, the DEFAULT, as the paper:  x = LayerNorm(x + Dropout(Sublayer(x)))
//   pre-norm, norm_first = true:           x = x + Dropout(Sublayer(LayerNorm(x))),
//                                          plus a final LayerNorm after the last layer
//                                          (Encoder::norm, Decoder::norm; absent in post-norm
//                                          unless final_norm = true, as torch.nn.Transformer
//                                          always has them: nn/torch_state_dict.h)
// Pre-norm trains more stably with many layers or without warm-up; post-norm is the paper's.
//
// Parameter names follow torch.nn.TransformerEncoderLayer / DecoderLayer where they can:
//   encoder.layers.0.self_attn.{q,k,v,out}_proj.{weight,bias}   (torch packs q,k,v in in_proj)
//   encoder.layers.0.feed_forward.linear1.weight ...            (torch: ...layers.0.linear1)
//   encoder.layers.0.norm1.weight, norm2                        decoder layers: norm1..3
//   decoder.layers.0.cross_attn...                              (torch: ...multihead_attn)
//   encoder.norm, decoder.norm (pre-norm, or final_norm), src_embedding.weight,
//   tgt_embedding.weight,
//   output_projection.{weight,bias} (absent when tied to tgt_embedding).
// Masks are Bool, true = may attend (nn/masks.h); an undefined Tensor means no mask.
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "nn/dropout.h"
#include "nn/embedding.h"
#include "nn/feed_forward.h"
#include "nn/key_value_cache.h"
#include "nn/layer_norm.h"
#include "nn/linear.h"
#include "nn/loss.h"
#include "nn/module.h"
#include "nn/multi_head_attention.h"
#include "nn/positional_encoding.h"
#include "tensor/random.h"

namespace atencion::nn {

// What one encoder or decoder layer needs.
struct TransformerLayerConfig {
  int64_t d_model = 512;
  int64_t heads = 8;
  int64_t d_ff = 2048;
  double dropout = 0.1;     // residual, feed-forward and attention-weight dropout
  bool norm_first = false;  // false: post-norm (the paper); true: pre-norm
  // A LayerNorm after the last layer of the stack (Encoder::norm, Decoder::norm) in post-norm
  // too, as torch.nn.Transformer has; pre-norm always has one.
  bool final_norm = false;
  Activation activation = Activation::ReLU;  // of the feed-forward; BERT's GELU, GPT-2's GELUTanh
  double layer_norm_eps = 1e-5;              // torch's default; BERT's is 1e-12
};

class EncoderLayer : public Module {
 public:
  EncoderLayer(const TransformerLayerConfig& config, Generator& generator);
  // x [batch, S, d_model], mask broadcasting to [batch, heads, S, S] -> [batch, S, d_model]
  // With a cache (inference only; a decoder-only model such as GPT, whose blocks are this layer
  // with a causal mask), x holds the S positions after those the cache holds and the mask
  // broadcasts to [batch, heads, S, positions so far], as DecoderLayer's self-attention.
  // `observer` (optional): the self-attention's weights (nn/attention_observer.h).
  Variable forward(const Variable& x, const Tensor& mask = Tensor(),
                   KeyValueCache* cache = nullptr, AttentionObserver* observer = nullptr);
  std::string type_name() const override;

  std::shared_ptr<MultiHeadAttention> self_attn;
  std::shared_ptr<FeedForward> feed_forward;
  std::shared_ptr<LayerNorm> norm1, norm2;
  std::shared_ptr<Dropout> dropout1, dropout2;

 private:
  bool norm_first_;
};

// What a DecoderLayer keeps between calls when it decodes a few positions at a time
// (docs/12-translation.md#the-key-value-cache): the keys and values of its two attentions.
struct LayerCache {
  KeyValueCache self_attn;   // x_i W^K, x_i W^V of the target positions fed so far
  KeyValueCache cross_attn;  // memory W^K, memory W^V: filled once (start_decoding)
};

class DecoderLayer : public Module {
 public:
  DecoderLayer(const TransformerLayerConfig& config, Generator& generator);
  // x [batch, T, d_model], memory [batch, S, d_model]; target_mask broadcasts to
  // [batch, heads, T, T] (causal, and target padding), memory_mask to [batch, heads, T, S]
  // (source padding) -> [batch, T, d_model].
  // With a cache (inference only), x holds the T positions after those the cache holds, both
  // attentions write their new keys and values into it and attend to all it holds: memory is
  // then the memory positions not yet in cache->cross_attn ([batch, 0, d_model] once
  // start_decoding has put them all there), and target_mask broadcasts to
  // [batch, heads, T, positions so far] (none is needed for one new position: nothing after it
  // exists yet). `observer` (optional): both attentions' weights (nn/attention_observer.h).
  Variable forward(const Variable& x, const Variable& memory, const Tensor& target_mask = Tensor(),
                   const Tensor& memory_mask = Tensor(), LayerCache* cache = nullptr,
                   AttentionObserver* observer = nullptr);
  std::string type_name() const override;

  std::shared_ptr<MultiHeadAttention> self_attn;   // masked self-attention
  std::shared_ptr<MultiHeadAttention> cross_attn;  // encoder-decoder attention
  std::shared_ptr<FeedForward> feed_forward;
  std::shared_ptr<LayerNorm> norm1, norm2, norm3;
  std::shared_ptr<Dropout> dropout1, dropout2, dropout3;

 private:
  bool norm_first_;
};

class Encoder : public Module {
 public:
  Encoder(const TransformerLayerConfig& config, int64_t layer_count, Generator& generator);
  Variable forward(const Variable& x, const Tensor& mask = Tensor(),
                   AttentionObserver* observer = nullptr);
  std::string type_name() const override;

  std::vector<std::shared_ptr<EncoderLayer>> layers;
  std::shared_ptr<LayerNorm> norm;  // pre-norm or final_norm; else null
};

class Decoder : public Module {
 public:
  Decoder(const TransformerLayerConfig& config, int64_t layer_count, Generator& generator);
  // Each layer's forward in turn; `cache`: none (training, and the uncached reference), or one
  // LayerCache per layer (DecoderLayer::forward says what x, memory and masks then hold).
  Variable forward(const Variable& x, const Variable& memory, const Tensor& target_mask = Tensor(),
                   const Tensor& memory_mask = Tensor(), std::span<LayerCache> cache = {},
                   AttentionObserver* observer = nullptr);
  std::string type_name() const override;

  std::vector<std::shared_ptr<DecoderLayer>> layers;
  std::shared_ptr<LayerNorm> norm;  // pre-norm or final_norm; else null
};

struct TransformerConfig {
  int64_t src_vocab = 0;
  int64_t tgt_vocab = 0;
  int64_t d_model = 512;
  int64_t heads = 8;
  int64_t encoder_layers = 6;
  int64_t decoder_layers = 6;
  int64_t d_ff = 2048;
  double dropout = 0.1;
  int64_t max_len = 512;       // longest sequence the positional encoding covers
  bool norm_first = false;     // false: post-norm, as the paper
  bool tie_target_embeddings = false;  // output projection = tgt_embedding.weight (no bias)
  int64_t padding_idx = -1;    // id of the padding token in both vocabularies (-1: none)
  bool final_norm = false;     // post-norm with torch's final LayerNorms (TransformerLayerConfig)

  TransformerLayerConfig layer() const {
    return {d_model, heads, d_ff, dropout, norm_first, final_norm};
  }
};

class Transformer : public Module {
 public:
  // Initialisation: encoder and decoder matrices Xavier-uniform (as torch.nn.Transformer);
  // embeddings N(0, 1/d_model), so that after the √d_model scaling they have unit variance;
  // the output projection as Linear's default.
  Transformer(const TransformerConfig& config, Generator& generator);

  // Each forward below takes an optional AttentionObserver last (nn/attention_observer.h): it
  // receives the weights of every attention the call runs, for the batch rows it asks for.

  // source ids [batch, S] (Int64) -> memory [batch, S, d_model]
  Variable encode(const Tensor& source, const Tensor& source_mask = Tensor(),
                  AttentionObserver* observer = nullptr);
  // target ids [batch, T], memory [batch, S, d_model] -> logits [batch, T, tgt_vocab].
  // With a cache (one LayerCache per decoder layer: nn/decoder_cache.h makes them), target holds
  // the T positions after those the cache holds, as in Decoder::forward.
  Variable decode(const Tensor& target, const Variable& memory,
                  const Tensor& target_mask = Tensor(), const Tensor& memory_mask = Tensor(),
                  std::span<LayerCache> cache = {}, AttentionObserver* observer = nullptr);
  // decode(target, encode(source, source_mask), target_mask, memory_mask)
  Variable forward(const Tensor& source, const Tensor& target, const Tensor& source_mask = Tensor(),
                   const Tensor& target_mask = Tensor(), const Tensor& memory_mask = Tensor(),
                   AttentionObserver* observer = nullptr);

  // Embedding·√d_model + PE (then dropout): the encoder's and decoder's inputs. The target's
  // first id sits at position first_position (not 0 after a key/value cache's positions).
  Variable embed_source(const Tensor& source);
  Variable embed_target(const Tensor& target, int64_t first_position = 0);
  // Row b's first id at first_positions[b] (rows of a cache at different lengths).
  Variable embed_target(const Tensor& target, const std::vector<int64_t>& first_positions);
  // Decoder states [batch, T, d_model] -> logits [batch, T, tgt_vocab].
  Variable project(const Variable& decoder_output) const;
  // decode() without the projection: the decoder states [batch, T, d_model].
  Variable decode_states(const Tensor& target, const Variable& memory,
                         const Tensor& target_mask = Tensor(), const Tensor& memory_mask = Tensor(),
                         std::span<LayerCache> cache = {}, AttentionObserver* observer = nullptr);
  // cross_entropy(project(decoder_output), targets, options), computed by linear_cross_entropy
  // (nn/loss.h) without ever holding the logits [batch, T, tgt_vocab] or their gradient:
  // what training calls. docs/11-training.md#cross-entropy
  Variable projected_cross_entropy(const Variable& decoder_output, const Tensor& targets,
                                   const CrossEntropyOptions& options = {}) const;

  std::string type_name() const override;
  const TransformerConfig& config() const { return config_; }

  std::shared_ptr<Embedding> src_embedding;
  std::shared_ptr<Embedding> tgt_embedding;
  std::shared_ptr<PositionalEncoding> positional_encoding;
  std::shared_ptr<Encoder> encoder;
  std::shared_ptr<Decoder> decoder;
  std::shared_ptr<Linear> output_projection;  // null when tie_target_embeddings

 private:
  TransformerConfig config_;
};

}  // namespace atencion::nn
