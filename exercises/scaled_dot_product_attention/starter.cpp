// exercises/scaled_dot_product_attention/starter.cpp — where the exercise starts
// (docs/exercises.md#scaled_dot_product_attention). Either way of starting judges the same:
// `tools/exercise.sh scaled_dot_product_attention` copies me to
// exercises/scaled_dot_product_attention/mine.cpp (git ignores it) and judges that file; or copy me
// anywhere and run `tools/exercise.sh scaled_dot_product_attention FILE`. I compile as I am, and my
// judge fails "not written yet".
//
// Read docs/05 up to "The five boxes" (the formula and the shapes), then stop: that section and
// nn/scaled_dot_product_attention.cpp are the answer. Yours to work out:
//   - which of query and key is transposed, so that row i of the scores belongs to query i;
//   - what the scores are divided by, and where d_k comes from (no argument gives it);
//   - the mask is true where a query MAY attend, but masked_fill(a, where, value) fills where
//     ITS argument is true (docs/05, Mask: the picture of the two conventions);
//   - along which dim the softmax makes weights that sum to 1.
// Tools (autograd/ops.h; each records its own backward, so gradients come for free):
//   matmul(a, b)  and  matmul(a, b, Trans::No, Trans::Yes) = a·bᵀ without copying b
//   div(a, number)   masked_fill(a, where, number)   logical_not(mask)   softmax(a, dim)
//   a.size(-1) is the last dim (an int64_t); mask.defined() is false when no mask was passed.
// C++ for a NumPy user: √n is std::sqrt(static_cast<double>(n)) (<cmath>); -np.inf is
// -std::numeric_limits<double>::infinity() (<limits>); `const Variable x = ...;` names a value.
#include <cmath>
#include <limits>
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
