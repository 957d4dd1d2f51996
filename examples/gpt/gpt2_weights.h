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
#include "base/io/expected_tensors.h"
#include "tensor/safetensors.h"
#include "tensor/safetensors_header.h"

namespace atencion::examples::gpt {

// The config a GPT-2 directory describes: the sizes from model.safetensors' header (the
// embeddings' shapes, the layers counted), n_head from config.json (else d_model / 64). Where
// config.json gives a size it must agree with the shapes, and what the model computes must be
// GPT-2's (activation_function "gelu_new", layer_norm_epsilon 1e-05, scale_attn_weights true,
// no per-layer scaling, n_inner null or 4 × n_embd): otherwise std::runtime_error
// "<dir>/config.json: '<field>' is <value>, not <what this GPT computes>".
GPTConfig gpt2_config(const std::string& dir, const SafetensorsHeader& header);

// GPT-2's tensors of a model of `config` in Hugging Face's names (the table above), with or
// without the "transformer." prefix: what check_expected_tensors compares the header with
// (lm_head.weight and the attention's mask buffers may be there too, and are not read).
ExpectedTensors gpt2_expected_tensors(const GPTConfig& config);

// Our names and tensors for Hugging Face's `weights` of a model of `config`, converted to
// `dtype`. Throws std::runtime_error "<file>: tensor '<name>': expected shape [...], found
// [...]" or "... missing" for a tensor that is not there or has the wrong shape.
NamedTensors from_gpt2_layout(const GPTConfig& config, const std::map<std::string, Tensor>& weights,
                              const std::string& file, DType dtype);

// A GPT with GPT-2's weights from `dir`, in eval mode. Every file is a regular one (a FIFO is
// refused by name), and every tensor's name, dtype and shape is checked on the header before
// any data is read (an I64 tensor where a weight belongs is refused, naming it).
std::shared_ptr<GPT> load_gpt2(const std::string& dir, DType dtype = DType::Float32);

}  // namespace atencion::examples::gpt
