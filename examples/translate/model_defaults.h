// examples/translate/model_defaults.h — the translator's default model, in one place: what
// `atencion-translate train` builds unless told otherwise (TrainOptions), and what
// bench/bench_decode.cpp measures. Header-only, so that a benchmark needs no other part of the
// program.
// Lesson: docs/12-translation.md#the-training-loop
#pragma once

#include "nn/transformer.h"

namespace atencion::examples::translate {

// The paper's base model is 512 wide with 6 + 6 layers; a CPU trains this smaller one in
// minutes (4 heads of 64, 2 + 2 layers) on the shipped pairs. No dropout: a 9-minute run sees
// the data one to three times, too few for the model to learn it by heart, and dropout 0.1 only
// slowed the learning (BLEU 34.6 → 39.5 without it on the same steps: docs/11-training.md#a-recipe-for-nine-minutes).
inline nn::TransformerConfig default_model() {
  nn::TransformerConfig model;
  model.d_model = 256;
  model.heads = 4;
  model.encoder_layers = 2;
  model.decoder_layers = 2;
  model.d_ff = 1024;
  model.dropout = 0.0;
  model.max_len = 128;
  return model;  // vocabulary sizes come from the tokenizers
}

}  // namespace atencion::examples::translate
