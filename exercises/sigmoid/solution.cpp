// exercises/sigmoid/solution.cpp — ours, in the form of autograd/ops/unary.cpp.
#include "exercises/sigmoid/sigmoid.h"

namespace atencion::exercise {

// y = 1 / (1 + e^(−x))      dx = g · y · (1 − y)
Variable sigmoid(const Variable& x) {
  const Tensor y = rdiv(1.0, add(exp(neg(x.value())), 1.0));
  return record("sigmoid", y, {x},
                [=](const Tensor& g) -> Grads { return {mul(g, mul(y, rsub(1.0, y)))}; });
}

}  // namespace atencion::exercise
