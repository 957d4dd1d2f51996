// autograd/ops/select.cpp — choosing between values by a Bool mask (attention masks), and
// the element-wise maximum, which chooses by comparing.
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

// y = max(a, b) element-wise (all broadcasting)
// da = g where a > b, g / 2 where a = b, else 0       db = the same with a and b swapped
// (at a tie y has a kink; splitting g evenly is PyTorch's choice for torch.maximum)
Variable maximum(const Variable& a, const Variable& b) {
  const Tensor a_value = a.value(), b_value = b.value();
  return record("maximum", maximum(a_value, b_value), {a, b},
                [=](const Tensor& g) -> Grads {
                  const Tensor zero = Tensor::scalar(0, g.dtype());
                  const Tensor half_g = mul(g, 0.5);
                  const Tensor a_wins = gt(a_value, b_value), b_wins = lt(a_value, b_value);
                  const Tensor tie = eq(a_value, b_value);
                  const Tensor grad_a = where(a_wins, g, where(tie, half_g, zero));
                  const Tensor grad_b = where(b_wins, g, where(tie, half_g, zero));
                  return {sum_to_shape(grad_a, a_value.shape()),
                          sum_to_shape(grad_b, b_value.shape())};
                });
}

}  // namespace atencion
