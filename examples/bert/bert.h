// bert/bert.h — the encoder-only Transformer of BERT (Devlin et al., 2018): a masked language model.
// Lesson: docs/16-bert.md
//
//   ids ─ word + position + token-type embeddings ─ LayerNorm ─ Dropout ─ Encoder (N post-norm
//   layers, GELU feed-forward, key-padding mask) ─ hidden states ─ masked-LM head ─ logits
//
// The masked-LM head (what predicts a hidden word from its hidden state):
//   h' = LayerNorm(gelu(h W_tᵀ + b_t))          transform_dense, transform_norm
//   logits = h' Eᵀ + b                          E = the word embeddings (tied), b its own bias
//
// Unlike the translator (nn/transformer.h) nothing here is causal: every position sees every
// other real one, so the model is trained to fill in masked words, not to continue a text.
// Positions are learned vectors (a table of max_positions rows), not the paper's sinusoids.
// Hugging Face's names for the same parameters: bert/bert_weights.h.
#pragma once

#include <cstdint>
#include <memory>
#include <string>

#include "base/io/expected_tensors.h"
#include "nn/dropout.h"
#include "nn/embedding.h"
#include "nn/layer_norm.h"
#include "nn/linear.h"
#include "nn/module.h"
#include "nn/transformer.h"
#include "tensor/random.h"

namespace atencion::examples::bert {

struct BertConfig {
  int64_t vocab = 0;            // word pieces
  int64_t hidden = 768;         // d_model
  int64_t heads = 12;
  int64_t layers = 12;
  int64_t intermediate = 3072;  // d_ff
  int64_t max_positions = 512;
  int64_t type_vocab = 2;       // sentence A / sentence B
  double dropout = 0.1;         // hidden states and attention weights, while training
  double layer_norm_eps = 1e-12;

  nn::TransformerLayerConfig layer() const {
    nn::TransformerLayerConfig config{hidden, heads, intermediate, dropout, false, false};
    config.activation = nn::Activation::GELU;
    config.layer_norm_eps = layer_norm_eps;
    return config;
  }
};

// Sum of the three lookups, then LayerNorm and Dropout: [batch, S] ids -> [batch, S, hidden].
class BertEmbeddings : public nn::Module {
 public:
  BertEmbeddings(const BertConfig& config, Generator& generator);
  // token_types: [batch, S] Int64, or undefined for all zeros (one sentence).
  Variable forward(const Tensor& ids, const Tensor& token_types = Tensor()) const;
  std::string type_name() const override;

  std::shared_ptr<nn::Embedding> word_embeddings, position_embeddings, token_type_embeddings;
  std::shared_ptr<nn::LayerNorm> norm;
  std::shared_ptr<nn::Dropout> dropout;
};

// Every tensor a Bert of `config` has, by our names and shapes (with_head: the masked-LM
// head's transform_dense, transform_norm and output_bias too): what its weights must hold
// (check_expected_tensors, base/io/expected_tensors.h), before the model is built.
ExpectedTensors expected_tensors(const BertConfig& config, bool with_head = true);

class Bert : public nn::Module {
 public:
  // Initialisation as BERT's: every matrix and embedding N(0, 0.02²), biases 0, LayerNorm 1 and 0.
  // A model whose weights are loaded next is built with Generator::skipping_tensor_draws()
  // (tensor/random.h): nothing is drawn (85 M normal draws for BERT-base), every weight is 0
  // until it is loaded.
  Bert(const BertConfig& config, Generator& generator);

  // ids [batch, S] (Int64) -> hidden states [batch, S, hidden]. `mask`: which keys each query
  // may see, e.g. padding_mask(lengths, S) [batch, 1, 1, S] (nn/masks.h); undefined = all.
  // `observer` (optional): each layer's self-attention weights (nn/attention_observer.h).
  Variable encode(const Tensor& ids, const Tensor& mask = Tensor(),
                  const Tensor& token_types = Tensor(), nn::AttentionObserver* observer = nullptr);
  // The masked-LM head: hidden [..., hidden] -> logits [..., vocab].
  Variable mlm_logits(const Variable& hidden) const;
  // Mean cross-entropy of the positions whose label is not nn::kIgnoreIndex, -100 (the masked
  // ones): the head runs on those rows only (nn::counted_rows). hidden [batch, S, hidden],
  // labels [batch, S] Int64.
  Variable masked_lm_loss(const Variable& hidden, const Tensor& labels) const;

  std::string type_name() const override;
  const BertConfig& config() const { return config_; }

  std::shared_ptr<BertEmbeddings> embeddings;
  std::shared_ptr<nn::Encoder> encoder;
  std::shared_ptr<nn::Linear> transform_dense;   // W_t, b_t
  std::shared_ptr<nn::LayerNorm> transform_norm;
  Variable output_bias;                      // b [vocab]

 private:
  Variable transform(const Variable& hidden) const;  // h' of the head
  BertConfig config_;
};

}  // namespace atencion::examples::bert
