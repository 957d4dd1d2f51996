// exercises/scaled_dot_product_attention/solution.cpp — ours: the forward of
// nn/scaled_dot_product_attention.cpp (without dropout).
#include "exercises/scaled_dot_product_attention/scaled_dot_product_attention.h"
#include "nn/scaled_dot_product_attention.h"

namespace atencion::exercise {

Variable scaled_dot_product_attention(const Variable& query, const Variable& key,
                                      const Variable& value, const Tensor& mask) {
  nn::ScaledDotProductAttention attention;
  return attention(query, key, value, mask);
}

}  // namespace atencion::exercise
