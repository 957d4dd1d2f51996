// exercises/softmax/wrong.cpp — the formula as written, without the max trick: e^1000 is inf
// in float64 (and e^89 already in float32), and inf / inf is NaN.
#include "exercises/softmax/softmax.h"
#include "tensor/ops.h"

namespace atencion::exercise {

Tensor softmax(const Tensor& scores) {
  const Tensor exponentials = exp(scores);
  return div(exponentials, sum(exponentials, {-1}, /*keepdim=*/true));
}

}  // namespace atencion::exercise
