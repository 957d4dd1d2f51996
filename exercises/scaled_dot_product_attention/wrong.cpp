// exercises/scaled_dot_product_attention/wrong.cpp — every box but Scale: softmax(Q Kᵀ) V.
// Shapes, masks and gradients are all fine; the weights are too sharp (docs/05, Scale).
#include <limits>

#include "autograd/ops.h"
#include "exercises/scaled_dot_product_attention/scaled_dot_product_attention.h"

namespace atencion::exercise {

Variable scaled_dot_product_attention(const Variable& query, const Variable& key,
                                      const Variable& value, const Tensor& mask) {
  Variable scores = matmul(query, key, Trans::No, Trans::Yes);
  if (mask.defined()) {
    scores = masked_fill(scores, logical_not(mask), -std::numeric_limits<double>::infinity());
  }
  return matmul(softmax(scores, -1), value);
}

}  // namespace atencion::exercise
