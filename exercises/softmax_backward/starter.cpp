// exercises/softmax_backward/starter.cpp — where the exercise starts
// (docs/exercises.md#softmax_backward). Either way of starting judges the same: `tools/exercise.sh
// softmax_backward` copies me to exercises/softmax_backward/mine.cpp (git ignores it) and judges
// that file; or copy me anywhere and run `tools/exercise.sh softmax_backward FILE`. I compile as I
// am, and my judge fails "not written yet".
//
// Derive it first, on paper: lesson 04 gives the Jacobian ∂y_i/∂x_k = y_i (δ_ik − y_k) (δ_ik is
// 1 when i = k, else 0); the chain rule makes dx_k = Σ_i g_i ∂y_i/∂x_k. Split that sum into its
// i = k term and the rest, and write dx with y and g alone (x is not given). The derivation is
// in docs/04, after the exercise.
// Tools (tensor/ops.h): mul, sub, sum(t, {-1}, /*keepdim=*/true). keepdim=true is NumPy's
// keepdims=True: a row sum of [2, 3, 5] is [2, 3, 1], so it broadcasts back over the row.
#include <stdexcept>

#include "exercises/softmax_backward/softmax_backward.h"
#include "tensor/ops.h"

namespace atencion::exercise {

Tensor softmax_backward(const Tensor& y, const Tensor& grad_output) {
  // TODO
  (void)y, (void)grad_output;
  throw std::logic_error("softmax_backward: not written yet (exercise softmax_backward)");
}

}  // namespace atencion::exercise
