// exercises/causal_mask/causal_mask.h — exercise "causal_mask" (docs/exercises.md#causal_mask).
// Lesson: docs/07-masked-attention.md#the-causal-mask
//
// Write it in your own file (start from starter.cpp), then judge it with
//   tools/exercise.sh causal_mask path/to/your_file.cpp
#pragma once

#include <cstdint>

#include "tensor/tensor.h"

namespace atencion::exercise {

// Bool [n, n], true = may attend: query i (row) may see key j (column) when j is not in its
// future. The decoder's masked self-attention (notebook 000).
Tensor causal_mask(int64_t n);

}  // namespace atencion::exercise
