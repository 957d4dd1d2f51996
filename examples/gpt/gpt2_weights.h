// examples/gpt/gpt2_weights.h — GPT-2's published weights, in Hugging Face's GPT2LMHeadModel
// layout, onto our GPT: the one place where names are mapped and Conv1D weights transposed.
// Lesson: docs/15-gpt.md#gpt-2s-own-weights
//
// A directory as published for GPT-2 (https://huggingface.co/openai-community/gpt2):
//   model.safetensors   the weights (names with or without a "transformer." prefix)
//   config.json         n_head (and n_embd, n_layer, n_positions, vocab_size); optional: without
//                       it, heads = d_model / 64, as every published GPT-2 size has
//   vocab.json + merges.txt, or encoder.json + vocab.bpe: the tokenizer (gpt2_bpe.h)
//
// Hugging Face's name (N = layer)       ours                                  how
//   wte.weight [V, d]                    token_embedding.weight                as is
//   wpe.weight [ctx, d]                  position_embedding.weight             as is
//   h.N.ln_1.{weight,bias}               layers.N.norm1.{weight,bias}          as is
//   h.N.attn.c_attn.weight [d, 3d]       layers.N.self_attn.{q,k,v}_proj.weight  columns
//                                        [0,d) [d,2d) [2d,3d), each transposed
//   h.N.attn.c_attn.bias [3d]            ...{q,k,v}_proj.bias                  cut in three
//   h.N.attn.c_proj.weight [d, d]        layers.N.self_attn.out_proj.weight    transposed
//   h.N.ln_2                             layers.N.norm2
//   h.N.mlp.c_fc.weight [d, 4d]          layers.N.feed_forward.linear1.weight  transposed
//   h.N.mlp.c_proj.weight [4d, d]        layers.N.feed_forward.linear2.weight  transposed
//   ln_f                                 final_norm
//   lm_head.weight (if present)          none: it is wte.weight (tied)
// Conv1D computes x W + b with W [in, out]; Linear computes x Wᵀ + b with W [out, in]: hence
// the transposes. The attention's mask buffers (h.N.attn.bias, masked_bias) are not weights.
#pragma once

#include <string>

#include "gpt/gpt.h"
#include "tensor/safetensors.h"

namespace atencion::examples::gpt {

// The config a GPT-2 directory describes (config.json if present, else the weights' shapes).
GPTConfig gpt2_config(const std::string& dir, const std::map<std::string, Tensor>& weights);

// Our names and tensors for Hugging Face's `weights` of a model of `config`, converted to
// `dtype`. Throws std::runtime_error "<file>: tensor '<name>': expected shape [...], found
// [...]" or "... missing" for a tensor that is not there or has the wrong shape.
NamedTensors from_gpt2_layout(const GPTConfig& config, const std::map<std::string, Tensor>& weights,
                              const std::string& file, DType dtype);

// A GPT with GPT-2's weights from `dir`, in eval mode.
std::shared_ptr<GPT> load_gpt2(const std::string& dir, DType dtype = DType::Float32);

}  // namespace atencion::examples::gpt
