// exercises/scaled_dot_product_attention/scaled_dot_product_attention.h — exercise
// "scaled_dot_product_attention" (docs/exercises.md#scaled_dot_product_attention).
// Lesson: docs/05-scaled-dot-product-attention.md
//
// Write it in your own file (start from starter.cpp), then judge it with
//   tools/exercise.sh scaled_dot_product_attention path/to/your_file.cpp
#pragma once

#include "autograd/variable.h"

namespace atencion::exercise {

// Attention(Q, K, V) = softmax(Q Kᵀ / √d_k) V with query [..., m_q, d_k], key [..., m_k, d_k],
// value [..., m_k, d_v] → [..., m_q, d_v]. `mask` (optional, Bool, true = may attend)
// broadcasts to the scores [..., m_q, m_k]; a key a query may not see gets weight 0.
Variable scaled_dot_product_attention(const Variable& query, const Variable& key,
                                      const Variable& value, const Tensor& mask = Tensor());

}  // namespace atencion::exercise
