// autograd/ops/matmul.cpp — Y = A·B and its two gradients.
// Lesson: docs/02-autograd.md#matmul
#include "autograd/ops.h"

namespace atencion {

namespace {
Trans flip(Trans t) { return t == Trans::Yes ? Trans::No : Trans::Yes; }

// A 2-D b used by every item of a batched, untransposed a: a Linear's weight against
// [batch, tokens, features]. Its gradient is the sum over the batch of Aᵀ·G.
bool shares_one_matrix(const Tensor& a, const Tensor& b, Trans trans_a) {
  return b.dim() == 2 && a.dim() > 2 && trans_a == Trans::No;
}

// That sum over the batch is one product with the batch folded into the summed dim:
//   dB = Σ_batch Aᵀ·G = A_rowsᵀ·G_rows, A_rows = a as [batch·m, k], G_rows = g as [batch·m, n],
// with no [batch, k, n] of per-item products to add up afterwards. (dBᵀ = G_rowsᵀ·A_rows.)
Tensor grad_of_shared_matrix(const Tensor& a, const Tensor& g, Trans trans_b) {
  const Tensor a_rows = a.reshape({-1, a.size(-1)});
  const Tensor g_rows = g.reshape({-1, g.size(-1)});
  return trans_b == Trans::No ? matmul(a_rows, g_rows, Trans::Yes, Trans::No)
                              : matmul(g_rows, a_rows, Trans::Yes, Trans::No);
}
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
                  if (shares_one_matrix(a_value, b_value, trans_a)) {
                    return {grad_a, grad_of_shared_matrix(a_value, g, trans_b)};
                  }
                  const Tensor grad_b =
                      trans_b == Trans::No
                          ? matmul(a_value, g, flip(trans_a), Trans::No)  // dB = Aᵀ·G
                          : matmul(g, a_value, Trans::Yes, trans_a);      // dBᵀ = Gᵀ·A
                  return {sum_to_shape(grad_a, a_value.shape()),
                          sum_to_shape(grad_b, b_value.shape())};
                });
}

}  // namespace atencion
