// nn/torch_state_dict.h — a module's parameters under PyTorch's names and layouts, both ways.
// Lesson: docs/06-multi-head-attention.md#pytorch-weights
//
// Our modules keep torch's layouts (a Linear's weight is [out, in], a LayerNorm has weight and
// bias); three things differ, and these functions translate them:
//
//   atencion                                  torch
//   <attn>.q_proj.weight  [d, d]  ┐           <attn>.in_proj_weight [3d, d]   rows [0, d) = Q,
//   <attn>.k_proj.weight  [d, d]  ├ stacked   [d, 2d) = K, [2d, 3d) = V, when kdim = vdim = d;
//   <attn>.v_proj.weight  [d, d]  ┘           else <attn>.q_proj_weight [d, d],
//                                             k_proj_weight [d, kdim], v_proj_weight [d, vdim]
//   <attn>.{q,k,v}_proj.bias [d]              <attn>.in_proj_bias [3d]   (always packed)
//   ...layers.N.cross_attn.                   ...layers.N.multihead_attn.
//   ...layers.N.feed_forward.linear1.         ...layers.N.linear1.      (linear2 the same)
//
// Everything else keeps its name: out_proj, norm1..norm3, encoder.norm / decoder.norm (which
// torch.nn.Transformer always has: build a post-norm Transformer with final_norm = true to hold
// them), and the parts torch.nn.Transformer leaves to its user (src_embedding, tgt_embedding,
// output_projection). So the names of a torch.nn.MultiheadAttention, TransformerEncoderLayer,
// TransformerDecoderLayer, TransformerEncoder/Decoder, or a torch.nn.Transformer subclass that
// adds those three attributes, load into MultiHeadAttention, EncoderLayer, DecoderLayer,
// Encoder/Decoder and Transformer. tools/export_torch.py goes the other way from Python.
//
// Saving a torch module for us takes a few lines of Python (tools/make_fixtures.py has a writer
// that needs only torch; Hugging Face's `safetensors.torch.save_file` writes the same format):
//   from make_fixtures import save_safetensors          # with tools/ on sys.path
//   mha = torch.nn.MultiheadAttention(512, 8, batch_first=True)
//   save_safetensors("mha.safetensors", dict(mha.state_dict()), {})
// and in C++:
//   nn::MultiHeadAttention mha(512, 8, generator);
//   nn::load_torch_safetensors(mha, "mha.safetensors");
//
// Matching torch's behaviour around the weights: use torch in eval mode or with dropout 0,
// activation "relu", layer_norm_eps 1e-5 and batch_first=True; torch's Bool masks are true where
// attention is NOT allowed, ours where it is (nn/masks.h: take the logical_not).
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "nn/module.h"
#include "tensor/safetensors.h"

namespace atencion::nn {

// The module's parameters (values shared, the packed in_proj tensors copied) under torch's names.
NamedTensors torch_state_dict(const Module& module);

// The same renaming and packing for any tensors named as `module`'s parameters are, e.g. their
// gradients: {name, parameter.grad()} for each named parameter.
NamedTensors to_torch_names(const Module& module, const NamedTensors& ours);

// Loads tensors named and laid out as torch's state_dict() into `module`. Checks everything
// before changing anything: each torch key the module needs must be there with the shape the
// module needs, and no other key may be; otherwise std::invalid_argument names the key, both
// shapes and the module's parameter(s) it stands for, e.g.
//   "load_torch_state_dict: MultiHeadAttention(...): torch key 'in_proj_weight' has shape
//    [24, 6] but the module needs [24, 8] (q_proj.weight, k_proj.weight, v_proj.weight)"
// Floating-point values are converted to the module's dtype (a float16 or float32 checkpoint
// loads into a float64 module).
void load_torch_state_dict(Module& module, const NamedTensors& torch_state);

// load_torch_state_dict from a safetensors file (any dtype load_safetensors reads); errors start
// with the path.
void load_torch_safetensors(Module& module, const std::string& path);

}  // namespace atencion::nn
