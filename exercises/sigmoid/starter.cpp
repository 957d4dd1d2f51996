// exercises/sigmoid/starter.cpp — where the exercise starts (docs/exercises.md#sigmoid). Either way
// of starting judges the same: `tools/exercise.sh sigmoid` copies me to exercises/sigmoid/mine.cpp
// (git ignores it) and judges that file; or copy me anywhere and run `tools/exercise.sh sigmoid
// FILE`. I compile as I am, and my judge fails "not written yet".
//
// Every op of autograd/ops/ is  return record("name", forward value, {inputs}, backward);
// (autograd/variable.h). The forward is computed on Tensors (tensor/ops.h: exp, neg, add,
// rdiv(1.0, t) = 1 / t, ...); the backward is a lambda that gets g = dL/dy and returns
// {dL/dx}. Hint: σ'(x) = σ(x)·(1 − σ(x)), so the backward needs only y.
#include <stdexcept>

#include "exercises/sigmoid/sigmoid.h"

namespace atencion::exercise {

Variable sigmoid(const Variable& x) {
  // TODO: the forward Tensor y, then record("sigmoid", y, {x}, backward).
  (void)x;
  throw std::logic_error("sigmoid: not written yet (exercise sigmoid)");
}

}  // namespace atencion::exercise
