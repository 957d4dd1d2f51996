// exercises/linear/linear.h — exercise "linear" (docs/exercises.md#linear).
// Lesson: docs/03-linear.md#the-formula-and-the-line-that-computes-it
//
// Write it in your own file (start from starter.cpp), then judge it with
//   tools/exercise.sh linear path/to/your_file.cpp
#pragma once

#include "autograd/variable.h"

namespace atencion::exercise {

// y = x Wᵀ + b with x [..., in], weight W [out, in] (torch's layout), bias b [out] or an
// undefined Variable for no bias → y [..., out].
Variable linear(const Variable& x, const Variable& weight, const Variable& bias);

}  // namespace atencion::exercise
