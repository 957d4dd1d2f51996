// exercises/sigmoid/wrong.cpp — the right forward with a backward that forgets the (1 − y)
// factor of σ' = σ(1 − σ): the values pass, gradcheck does not.
#include "exercises/sigmoid/sigmoid.h"

namespace atencion::exercise {

Variable sigmoid(const Variable& x) {
  const Tensor y = rdiv(1.0, add(exp(neg(x.value())), 1.0));
  return record("sigmoid", y, {x}, [=](const Tensor& g) -> Grads { return {mul(g, y)}; });
}

}  // namespace atencion::exercise
