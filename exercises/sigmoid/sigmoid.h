// exercises/sigmoid/sigmoid.h — exercise "sigmoid" (docs/exercises.md#sigmoid).
// Lesson: docs/02-autograd.md#recording-the-graph
//
// Write a new differentiable op in your own file (start from starter.cpp), then judge it with
//   tools/exercise.sh sigmoid path/to/your_file.cpp
#pragma once

#include "autograd/variable.h"

namespace atencion::exercise {

// y = σ(x) = 1 / (1 + e^(−x)) element-wise, recorded as one op with its own backward.
Variable sigmoid(const Variable& x);

}  // namespace atencion::exercise
