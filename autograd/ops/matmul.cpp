// autograd/ops/matmul.cpp — Y = A·B and its two gradients.
// Lesson: docs/02-autograd.md#matmul
#include "autograd/ops.h"

namespace atencion {

namespace {
Trans flip(Trans t) { return t == Trans::Yes ? Trans::No : Trans::Yes; }
}  // namespace

// Y = A·B with A = op(a), B = op(b):   Y_ij = Σ_k A_ik B_kj
//   dA = G·Bᵀ   (dY_ij/dA_ik = B_kj)        dB = Aᵀ·G   (dY_ij/dB_kj = A_ik)
// When an operand was used transposed (a = Aᵀ), its gradient is the transpose: da = dAᵀ.
// Batch dims that broadcast (a [1, m, k] against b [4, k, n]) are summed back to each shape.
Variable matmul(const Variable& a, const Variable& b, Trans trans_a, Trans trans_b) {
  const Tensor a_value = a.value(), b_value = b.value();
  return record("matmul", matmul(a_value, b_value, trans_a, trans_b), {a, b},
                [=](const Tensor& g) -> Grads {
                  // forward: Y = op(a)·op(b). Each product below reads its operands through
                  // the Trans flags, so no transposed copy is made.
                  const Tensor grad_a =
                      trans_a == Trans::No
                          ? matmul(g, b_value, Trans::No, flip(trans_b))  // dA = G·Bᵀ
                          : matmul(b_value, g, trans_b, Trans::Yes);      // dAᵀ = B·Gᵀ
                  const Tensor grad_b =
                      trans_b == Trans::No
                          ? matmul(a_value, g, flip(trans_a), Trans::No)  // dB = Aᵀ·G
                          : matmul(g, a_value, Trans::Yes, trans_a);      // dBᵀ = Gᵀ·A
                  return {sum_to_shape(grad_a, a_value.shape()),
                          sum_to_shape(grad_b, b_value.shape())};
                });
}

}  // namespace atencion
