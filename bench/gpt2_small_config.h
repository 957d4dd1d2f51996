// bench/gpt2_small_config.h — the shape of GPT-2 small (124M parameters), which the decode and
// fine-tune benchmarks build with random weights from a fixed seed.
#pragma once

#include "gpt/gpt.h"

namespace atencion::bench {

inline examples::gpt::GPTConfig gpt2_small_config(double dropout) {
  examples::gpt::GPTConfig config;
  config.vocab = 50257;
  config.context = 1024;
  config.d_model = 768;
  config.heads = 12;
  config.layers = 12;
  config.dropout = dropout;
  return config;
}

}  // namespace atencion::bench
