// examples/base/io/expected_tensors.h — does a weights file hold what its config asks for? One
// check for every family, made before the model is built (and, for a published directory,
// before the file's data is read): a config.json that asks for a thousand layers or a
// feed-forward a million wide is refused on the file's header, not after the allocation.
// Lesson: docs/12-translation.md#checkpoints
//
// Each family states once, from its config, every tensor its model has, by name and shape
// (expected_tensors in translate/translator.h, gpt/gpt.h, bert/bert.h); the check compares that
// list with the file's tensors: every name there (none missing and, for a checkpoint, none
// extra), each in a floating-point dtype (an I64 tensor would load as garbage weights), each of
// the shape the config gives it.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "tensor/safetensors.h"
#include "tensor/safetensors_header.h"
#include "tensor/tensor.h"

namespace atencion::examples {

// One tensor a model has. `names`: its name, then the older spellings a file may use instead
// (a BERT's LayerNorm "gamma" for "weight").
struct ExpectedTensor {
  std::vector<std::string> names;
  Shape shape;
};
using ExpectedTensors = std::vector<ExpectedTensor>;

// The tensors of nn's modules under `prefix`, for the families' lists: a Linear's weight
// [out, in] and bias [out] (nn/linear.h), a LayerNorm's weight and bias [size]
// (nn/layer_norm.h), and a layer of nn/transformer.h: an EncoderLayer (self_attn's four
// projections, feed_forward's linear1 [d_ff, d_model] and linear2, norm1, norm2) or, with
// cross attention, a DecoderLayer (and cross_attn, norm3).
void add_linear(ExpectedTensors& list, const std::string& prefix, int64_t out, int64_t in);
void add_layer_norm(ExpectedTensors& list, const std::string& prefix, int64_t size);
void add_transformer_layer(ExpectedTensors& list, const std::string& prefix, int64_t d_model,
                           int64_t d_ff, bool cross_attention = false);

// The tensors of a file by name, as its header states them (load_safetensors_header,
// tensor/safetensors_header.h), or of tensors already read (their dtype's stored name: "F32",
// "F64", "I64", "BOOL").
SafetensorsHeader header_of(const NamedTensors& tensors);

enum class OtherTensors {
  Refuse,  // a checkpoint of ours: a tensor the config does not ask for is an error
  Ignore,  // a published file: buffers and heads we do not use (masks, a pooler) may be there
};

// Throws std::runtime_error, one line naming `file` and the tensor:
//   "<file>: no tensor 'layers.3.norm1.weight' (<config> asks for one of shape [8])"
//   "<file>: tensor 'layers.0.feed_forward.linear1.weight' has shape [32, 8], <config> asks
//    for [64, 8]"
//   "<file>: tensor 'token_embedding.weight' is I64, not floating-point weights (F32, F64, F16
//    or BF16)"
//   "<file>: tensor 'layers.4.norm1.weight' is not one <config> asks for (a model of its
//    sizes has 26 tensors)"
// `config` names what asks, in the messages: "config.json" for a checkpoint, "the model" for a
// published file whose sizes come from its own shapes.
void check_expected_tensors(const SafetensorsHeader& found, const ExpectedTensors& expected,
                            const std::string& file, OtherTensors others = OtherTensors::Refuse,
                            const std::string& config = "config.json");

}  // namespace atencion::examples
