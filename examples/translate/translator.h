// examples/translate/translator.h — a Transformer with its two tokenizers: text in, text out.
// Lesson: docs/12-translation.md
//
// The pieces of the translator that every command shares: building the model from a config,
// turning a batch of ids into the tensors and masks the Transformer takes, the training loss,
// and saving or loading the whole thing as a checkpoint (checkpoint.h).
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "base/data/batching.h"
#include "base/checkpoints/checkpoint.h"
#include "base/io/config_fields.h"
#include "base/io/expected_tensors.h"
#include "nn/transformer.h"
#include "base/data/tokenizer.h"

namespace atencion::examples::translate {

// The tensors of one batch, as the Transformer takes them (masks: Bool, true = may attend).
struct BatchTensors {
  Tensor source;          // [B, S] Int64
  Tensor target_input;    // [B, T] Int64: bos y1 .. yn
  Tensor target_output;   // [B, T] Int64: y1 .. yn eos (pad where there is nothing)
  Tensor source_mask;     // [B, 1, 1, S]: the real source tokens (encoder and cross attention)
  Tensor target_mask;     // [T, T]: causal. Target padding needs no mask of its own: pads come
                          // last, so no real query looks at them, and the loss ignores them.
};
BatchTensors to_tensors(const Batch& batch);

struct Translator {
  nn::TransformerConfig config;
  std::shared_ptr<nn::Transformer> model;
  Tokenizer source_tokenizer;
  Tokenizer target_tokenizer;

  // A fresh model for these tokenizers (config's vocab sizes and padding_idx are filled in).
  static Translator create(nn::TransformerConfig config, Tokenizer source_tokenizer,
                           Tokenizer target_tokenizer, uint64_t seed);
  // The model and tokenizers of a checkpoint (checkpoint.h), in eval mode.
  static Translator from_checkpoint(const CheckpointData& checkpoint);

  // logits [B, T, target vocab] for a batch (teacher forcing).
  Variable logits(const BatchTensors& batch) const;
  // Mean cross-entropy over the non-pad targets, with label smoothing.
  Variable loss(const BatchTensors& batch, double label_smoothing) const;

  // The parts of a checkpoint this struct owns: config, model weights, tokenizers.
  CheckpointData to_checkpoint() const;
};

// For inference only (translate, serve): every linear layer's W packed once into panels of
// gemm()'s width (nn::use_packed_weights; 16 rows with AVX2's kernel, 32 with AVX-512's) where
// the CPU has AVX2 and FMA and the weights are float32, so that no product of a batch's rows
// packs W afresh at each decoding step; elsewhere nothing changes. The answers have
// the same bits either way (tensor/packed_rows.h). Training afterwards is refused by the layers.
void pack_weights_for_inference(const Translator& translator);

constexpr int64_t kLongestMaxLen = 1 << 16;  // positions; sentences are far shorter

// Every tensor a Transformer of `config` has (nn/transformer.h: the embeddings, each encoder
// and decoder layer, the final norms of a pre-norm model, the output projection unless tied),
// by name and shape: what a checkpoint's weights must hold (check_expected_tensors,
// base/io/expected_tensors.h), checked before any model is built from the config.
ExpectedTensors expected_tensors(const nn::TransformerConfig& config);

// The config's fields, each once (base/io/config_fields.h): config.json's "model" section is
// written and read through them, and serve's /api/info shows them. Each is read only as a save
// writes it (16.5 is not read as 16), in the range a model can be built with (max_len up to
// kLongestMaxLen, at most 1024 layers of each kind).
const ConfigFields<nn::TransformerConfig>& config_fields();
nlohmann::json config_to_json(const nn::TransformerConfig& config);
nn::TransformerConfig config_from_json(const nlohmann::json& json);

}  // namespace atencion::examples::translate
