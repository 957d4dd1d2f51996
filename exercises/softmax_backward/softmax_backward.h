// exercises/softmax_backward/softmax_backward.h — exercise "softmax_backward"
// (docs/exercises.md#softmax_backward). Lessons: docs/04-softmax.md#the-gradient,
// docs/02-autograd.md#softmax
//
// Write it in your own file (start from starter.cpp), then judge it with
//   tools/exercise.sh softmax_backward path/to/your_file.cpp
#pragma once

#include "tensor/tensor.h"

namespace atencion::exercise {

// The backward of y = softmax(x) along the last dim: given y and g = dL/dy (same shape),
// return dL/dx.
Tensor softmax_backward(const Tensor& y, const Tensor& grad_output);

}  // namespace atencion::exercise
