// autograd/ops/select.cpp — choosing between values by a Bool mask (attention masks).
// Lesson: docs/02-autograd.md#masks
//
// The mask is a constant. Where an output came from an input, the gradient flows to it
// unchanged; where it came from the other input or from a fill value, that input gets 0.
#include "autograd/ops.h"

namespace atencion {

// y = value where mask, else x         dx = g where !mask, else 0
// (with value = -inf before a softmax: the masked scores get exactly 0 gradient)
Variable masked_fill(const Variable& x, const Tensor& mask, double value) {
  return record("masked_fill", masked_fill(x.value(), mask, value), {x},
                [=](const Tensor& g) -> Grads { return {masked_fill(g, mask, 0.0)}; });
}

// y = mask ? a : b (all three broadcast)
// da = g where mask, else 0 (summed back to a's shape)    db = g where !mask, else 0
Variable where(const Tensor& mask, const Variable& a, const Variable& b) {
  const Shape a_shape = a.shape(), b_shape = b.shape();
  return record("where", where(mask, a.value(), b.value()), {a, b},
                [=](const Tensor& g) -> Grads {
                  const Tensor zero = Tensor::scalar(0, g.dtype());
                  return {sum_to_shape(where(mask, g, zero), a_shape),
                          sum_to_shape(where(mask, zero, g), b_shape)};
                });
}

}  // namespace atencion
