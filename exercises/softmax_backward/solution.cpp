// exercises/softmax_backward/solution.cpp — ours: the closure of softmax in
// autograd/ops/softmax.cpp, dx_k = y_k (g_k − Σ_i g_i y_i).
#include "exercises/softmax_backward/softmax_backward.h"
#include "tensor/ops.h"

namespace atencion::exercise {

Tensor softmax_backward(const Tensor& y, const Tensor& grad_output) {
  const Tensor g_dot_y = sum(mul(grad_output, y), {-1}, /*keepdim=*/true);  // Σ_i g_i y_i
  return mul(y, sub(grad_output, g_dot_y));
}

}  // namespace atencion::exercise
