// exercises/softmax/starter.cpp — where the exercise starts (docs/exercises.md#softmax). Either way
// of starting judges the same: `tools/exercise.sh softmax` copies me to exercises/softmax/mine.cpp
// (git ignores it) and judges that file; or copy me anywhere and run `tools/exercise.sh softmax
// FILE`. I compile as I am, and my judge fails "not written yet".
//
// Tools (tensor/ops.h): max(x, -1, /*keepdim=*/true).values, sub, exp, sum(x, {-1}, true),
// div, eq(x, value), masked_fill(x, where, value). Shapes broadcast like NumPy's.
// Hints: e^(x_i − m) / Σ_j e^(x_j − m) is the same softmax for any m (docs/04, the max trick).
// A row of only −inf has max −inf, and −inf − (−inf) is NaN: decide what m is there.
// C++ for a NumPy user: keepdim=true is NumPy's keepdims=True: the max of [2, 3] along -1 is
// [2, 1], not [2], so that x − m broadcasts row by row. −∞ is
// -std::numeric_limits<double>::infinity() (<limits>); the functions take and return Tensors,
// so write one named step a line: `const Tensor shifted = sub(scores, row_max);`.
#include <cmath>
#include <limits>
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
