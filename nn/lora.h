// nn/lora.h — LoRA over a whole model: adapters on the Linear layers a fine-tune names.
// Lesson: docs/03-linear.md#lora ; the layer itself: Linear::add_lora in nn/linear.h.
//
// A model's Linear layers are found by the last part of their dotted names, as PEFT's
// target_modules: {"q_proj", "v_proj"} adapts every attention's query and value projections
// ("encoder.layers.0.self_attn.q_proj", "decoder.layers.1.cross_attn.q_proj", ...).
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "nn/module.h"
#include "tensor/random.h"

namespace atencion::nn {

struct LoRAOptions {
  int64_t rank = 8;                     // r
  double alpha = 16.0;                  // α; the update is scaled by α / r
  std::vector<std::string> targets;     // last name parts of the Linear layers to adapt
};

// Freezes every parameter of the model (requires_grad false), then adds an adapter to every
// Linear whose name ends in one of options.targets, in the order of named_modules(), drawing
// each A from `generator`; returns their dotted names. A new task head is unfrozen by its owner. Throws, naming
// the target, when a target matches no Linear layer (the names it could have matched listed).
std::vector<std::string> add_lora(Module& model, const LoRAOptions& options,
                                  Generator& generator);

// Folds every adapter of the model into its weight (Linear::merge_lora) and makes every
// parameter trainable again (a plain model); returns how many adapters it folded.
int64_t merge_lora(Module& model);

// The parameters an optimizer should update: those that require grad (all of them in a model
// without adapters; only the adapters, and whatever else was left trainable, with them).
std::vector<std::pair<std::string, Variable>> trainable_parameters(const Module& model);

}  // namespace atencion::nn
