// exercises/lora_forward/lora_forward.h — exercise "lora_forward" (docs/exercises.md#lora_forward).
// Lesson: docs/18-finetuning.md#lora-as-a-graph ; the layer: docs/03-linear.md#lora
//
// Write it in your own file (start from starter.cpp), then judge it with
//   tools/exercise.sh lora_forward path/to/your_file.cpp
#pragma once

#include "autograd/variable.h"

namespace atencion::exercise {

// A Linear layer with a LoRA adapter: y = x Wᵀ + b + scaling · (x Aᵀ) Bᵀ, with x [..., in],
// weight W [out, in], bias b [out] (or an undefined Variable: no bias), lora_A [r, in],
// lora_B [out, r] and scaling = α / r  →  y [..., out].
Variable lora_forward(const Variable& x, const Variable& weight, const Variable& bias,
                      const Variable& lora_A, const Variable& lora_B, double scaling);

}  // namespace atencion::exercise
