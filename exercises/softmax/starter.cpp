// exercises/softmax/starter.cpp — copy me to a file of your own, write softmax, and run:
//   tools/exercise.sh softmax your_file.cpp
//
// Tools (tensor/ops.h): max(x, -1, /*keepdim=*/true).values, sub, exp, sum(x, {-1}, true),
// div, eq(x, value), masked_fill(x, mask, value). Shapes broadcast like PyTorch's.
// Hints: e^(x_i − m) / Σ_j e^(x_j − m) is the same softmax for any m (docs/04, the max trick).
// A row of only −inf has max −inf, and −inf − (−inf) is NaN: decide what m is there.
#include <stdexcept>

#include "exercises/softmax/softmax.h"
#include "tensor/ops.h"

namespace atencion::exercise {

Tensor softmax(const Tensor& scores) {
  // TODO
  (void)scores;
  throw std::logic_error("softmax: not written yet (exercise softmax)");
}

}  // namespace atencion::exercise
