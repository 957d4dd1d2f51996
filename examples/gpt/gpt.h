// examples/gpt/gpt.h — a decoder-only Transformer in GPT-2's layout, from the library's modules.
// Lesson: docs/15-gpt.md
//
//   ids ─ token_embedding + position_embedding ─ Dropout ─ N × Block ─ final_norm ─ · Eᵀ ─ logits
//   Block (pre-norm):  x = x + Dropout(SelfAttention(LayerNorm(x), causal mask))
//                      x = x + Dropout(MLP(LayerNorm(x)))      MLP = Linear(d, 4d) → gelu(tanh)
//                                                                    → Dropout → Linear(4d, d)
// The block is nn::EncoderLayer with norm_first and a causal mask: the masked self-attention of
// notebook 000 with no encoder to attend to (nn/transformer.h). The output projection is the
// token embedding itself (weight tying: logits = h Eᵀ, no bias), as GPT-2's lm_head.
//
// Parameter names (gpt2_weights.cpp maps Hugging Face's onto them):
//   token_embedding.weight [vocab, d]   position_embedding.weight [context, d]
//   layers.N.self_attn.{q,k,v,out}_proj.{weight,bias}  layers.N.norm1, norm2
//   layers.N.feed_forward.linear1, linear2             final_norm.{weight,bias}
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "base/io/config_fields.h"
#include "base/io/expected_tensors.h"
#include "nlohmann/json.hpp"
#include "nn/dropout.h"
#include "nn/embedding.h"
#include "nn/key_value_cache.h"
#include "nn/layer_norm.h"
#include "nn/module.h"
#include "nn/transformer.h"
#include "tensor/bfloat16_matrix.h"
#include "tensor/packed_rows.h"
#include "tensor/random.h"
#include "tensor/safetensors.h"

namespace atencion::examples::gpt {

struct GPTConfig {
  int64_t vocab = 256;    // byte-level tokens by default; GPT-2: 50257
  int64_t context = 128;  // longest sequence (learned positions); GPT-2: 1024
  int64_t d_model = 128;  // GPT-2 small: 768
  int64_t heads = 4;      // 12
  int64_t layers = 4;     // 12
  double dropout = 0.1;   // embeddings, attention weights, residual branches, inside the MLP
  // (LayerNorm's ε is nn's 1e-5, GPT-2's too)
};

class GPT : public nn::Module {
 public:
  // GPT-2's initialisation: every matrix and embedding N(0, 0.02²), biases 0, LayerNorms 1 and 0,
  // and the projections that end a residual branch (out_proj, linear2) N(0, (0.02/√(2N))²).
  // With Generator::skipping_tensor_draws() (a model whose weights are loaded next), no draws.
  GPT(const GPTConfig& config, Generator& generator);

  // ids [batch, T] (Int64, T ≤ context) -> the final LayerNorm's output [batch, T, d_model].
  // With a cache (one KeyValueCache per layer: make_cache; inference only, under NoGradGuard),
  // ids are the T positions after the cache's and attend to all it holds. `observer`
  // (optional): each layer's causal self-attention weights (nn/attention_observer.h).
  Variable hidden_states(const Tensor& ids, std::span<nn::KeyValueCache> cache = {},
                         nn::AttentionObserver* observer = nullptr);
  // logits [batch, T, vocab] = hidden_states(ids) · Eᵀ
  Variable forward(const Tensor& ids, std::span<nn::KeyValueCache> cache = {},
                   nn::AttentionObserver* observer = nullptr);
  // The language-model loss: mean cross-entropy of targets [batch, T] (the ids shifted by one)
  // given ids, computed without holding the logits (nn::linear_cross_entropy).
  Variable loss(const Tensor& ids, const Tensor& targets);

  // One empty cache per layer, room for `positions` (≤ context) positions of `rows` sequences,
  // and for up to `max_rows` after a reorder (beam search; 0: rows).
  std::vector<nn::KeyValueCache> make_cache(int64_t rows, int64_t positions,
                                            int64_t max_rows = 0) const;

  // Inference in bfloat16 (docs/15-gpt.md#bfloat16-weights): every Linear's weight and the tied
  // token embedding rounded to bfloat16 and kept so (nn::Linear::use_bfloat16_weight), about
  // half the bytes a new token reads; the logits' product reads the bfloat16 embedding. Biases,
  // LayerNorms and the position table stay float32 (a token reads one row of it). Forward runs
  // under NoGradGuard only, after. Throws check_bfloat16_support's line on a CPU without AVX2 and
  // FMA, or for a float64 model.
  void use_bfloat16_weights();
  bool uses_bfloat16_weights() const { return head_bfloat16_ != nullptr; }

  // Decoding in float32 at the speed W is read (docs/performance.md#one-row-products): every
  // Linear's weight and the tied token embedding copied into panels of 32 rows
  // (nn::Linear::use_packed_weight, tensor/packed_rows.h), which a forward of one position of
  // one sequence reads as one stream, with the same bits; longer inputs read the weights as
  // before. A second copy of the weight matrices (GPT-2 small: about 500 MB more); forward under
  // NoGradGuard only, after. Refused (in one line) for a bfloat16 or float64 model, or on a CPU
  // without AVX2 and FMA (check_packed_rows_support).
  void use_packed_weights();
  bool uses_packed_weights() const { return head_packed_ != nullptr; }

  std::string type_name() const override;
  const GPTConfig& config() const { return config_; }

  std::shared_ptr<nn::Embedding> token_embedding;
  std::shared_ptr<nn::Embedding> position_embedding;
  std::shared_ptr<nn::Dropout> dropout;
  std::vector<std::shared_ptr<nn::EncoderLayer>> layers;
  std::shared_ptr<nn::LayerNorm> final_norm;

 private:
  GPTConfig config_;
  std::shared_ptr<const BFloat16Matrix> head_bfloat16_;  // E as bfloat16, or null
  std::shared_ptr<const PackedRows> head_packed_;        // E in panels, or null
  std::weak_ptr<Storage> head_packed_from_;              // E's values when it was packed
};

// The config's fields, each once (base/io/config_fields.h): config.json's "model" section is
// written and read through them.
const ConfigFields<GPTConfig>& config_fields();
nlohmann::json config_to_json(const GPTConfig& config);
// Each field checked (whole numbers ≥ 1, d_model a multiple of heads, dropout in [0, 1));
// throws std::runtime_error "<where>: config.json: ...".
GPTConfig config_from_json(const nlohmann::json& json, const std::string& where);
// Every tensor a GPT of `config` has, by name and shape: what its weights must hold
// (check_expected_tensors, base/io/expected_tensors.h), checked before one is built.
ExpectedTensors expected_tensors(const GPTConfig& config);

}  // namespace atencion::examples::gpt
