// exercises/softmax_backward/wrong.cpp — only the diagonal of the Jacobian, dx_k = g_k y_k:
// it forgets that raising one score lowers every other weight of the row (the − y_i y_k terms).
#include "exercises/softmax_backward/softmax_backward.h"
#include "tensor/ops.h"

namespace atencion::exercise {

Tensor softmax_backward(const Tensor& y, const Tensor& grad_output) {
  return mul(y, grad_output);
}

}  // namespace atencion::exercise
