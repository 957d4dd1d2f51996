// exercises/softmax_backward/starter.cpp — copy me to a file of your own, write the backward,
// and run:  tools/exercise.sh softmax_backward your_file.cpp
//
// Derive it first: dy_i/dx_k = y_i (δ_ik − y_k), so dx_k = Σ_i g_i dy_i/dx_k = ... ?
// Tools (tensor/ops.h): mul, sub, sum(t, {-1}, /*keepdim=*/true). Only y is given, not x:
// the derivative of softmax can be written with y alone.
#include <stdexcept>

#include "exercises/softmax_backward/softmax_backward.h"
#include "tensor/ops.h"

namespace atencion::exercise {

Tensor softmax_backward(const Tensor& y, const Tensor& grad_output) {
  // TODO
  (void)y, (void)grad_output;
  throw std::logic_error("softmax_backward: not written yet (exercise softmax_backward)");
}

}  // namespace atencion::exercise
