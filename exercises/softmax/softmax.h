// exercises/softmax/softmax.h — exercise "softmax" (docs/exercises.md#softmax).
// Lesson: docs/04-softmax.md#overflow-and-the-max-trick
//
// Write it in your own file (start from starter.cpp), then judge it with
//   tools/exercise.sh softmax path/to/your_file.cpp
#pragma once

#include "tensor/tensor.h"

namespace atencion::exercise {

// softmax along the last dim: y_i = e^(x_i) / Σ_j e^(x_j), without overflow for large scores,
// weight 0 for entries of −inf, and a row of zeros (not NaN) where every entry is −inf.
Tensor softmax(const Tensor& scores);

}  // namespace atencion::exercise
