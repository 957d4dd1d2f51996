// exercises/scaled_dot_product_attention/starter.cpp — copy me to a file of your own, write the
// function, and run:  tools/exercise.sh scaled_dot_product_attention your_file.cpp
//
// The five boxes of the paper's figure 2 (left), one line each, with autograd/ops.h:
//   MatMul   matmul(query, key, Trans::No, Trans::Yes)      Q Kᵀ without copying K
//   Scale    div(scores, std::sqrt(d_k))                    d_k = query.size(-1)
//   Mask     masked_fill(scaled, logical_not(mask), -inf)   only if mask.defined()
//   Softmax  softmax(masked, -1)                            along the keys
//   MatMul   matmul(weights, value)
// Watch the order of query and key: notebooks 000/001/003 swap them (docs/05, where our code
// departs). Every op records its backward, so the gradients come for free.
#include <stdexcept>

#include "autograd/ops.h"
#include "exercises/scaled_dot_product_attention/scaled_dot_product_attention.h"

namespace atencion::exercise {

Variable scaled_dot_product_attention(const Variable& query, const Variable& key,
                                      const Variable& value, const Tensor& mask) {
  // TODO
  (void)query, (void)key, (void)value, (void)mask;
  throw std::logic_error(
      "scaled_dot_product_attention: not written yet (exercise scaled_dot_product_attention)");
}

}  // namespace atencion::exercise
