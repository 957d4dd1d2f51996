// exercises/sigmoid/starter.cpp — copy me to a file of your own, write sigmoid, and run:
//   tools/exercise.sh sigmoid your_file.cpp
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
