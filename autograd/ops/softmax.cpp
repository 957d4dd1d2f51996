// autograd/ops/softmax.cpp — softmax and log-softmax along one dim.
// Lesson: docs/02-autograd.md#softmax
//
// Both forwards subtract the row max first (tensor/ops.h: exp of large scores overflows,
// notebook 004); the max cancels, so the derivatives below do not see it.
#include "autograd/ops.h"

namespace atencion {

// y_i = e^(x_i) / Σ_j e^(x_j)
// Jacobian: dy_i/dx_k = y_i (δ_ik - y_k), so
//   dx_k = Σ_i g_i y_i (δ_ik - y_k) = y_k (g_k - Σ_i g_i y_i)
// An entry masked to -inf has y_k = 0 and so gets no gradient; a row of all -inf is all zeros.
Variable softmax(const Variable& x, int64_t dim) {
  const Tensor y = softmax(x.value(), dim);
  return record("softmax", y, {x},
                [=](const Tensor& g) -> Grads {
                  // mul(y, sub(g, sum(mul(g, y), {dim}, true))), in one pass over each row
                  return {softmax_backward(y, g, dim)};
                });
}

// y_i = x_i - log Σ_j e^(x_j)
// Jacobian: dy_i/dx_k = δ_ik - softmax_k, so  dx_k = g_k - softmax_k Σ_i g_i,  softmax_k = e^(y_k)
Variable log_softmax(const Variable& x, int64_t dim) {
  const Tensor y = log_softmax(x.value(), dim);
  return record("log_softmax", y, {x},
                [=](const Tensor& g) -> Grads {
                  const Tensor g_total = sum(g, {dim}, /*keepdim=*/true);  // Σ_i g_i
                  return {sub(g, mul(exp(y), g_total))};
                });
}

}  // namespace atencion
