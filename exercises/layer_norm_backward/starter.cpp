// exercises/layer_norm_backward/starter.cpp — where the exercise starts
// (docs/exercises.md#layer_norm_backward). Either way of starting judges the same:
// `tools/exercise.sh layer_norm_backward` copies me to exercises/layer_norm_backward/mine.cpp (git
// ignores it) and judges that file; or copy me anywhere and run `tools/exercise.sh
// layer_norm_backward FILE`. I compile as I am, and my judge fails "not written yet".
//
// Tools (tensor/ops.h): mean(t, {-1}, true), var(t, {-1}, /*correction=*/0, true), sqrt, mul,
// sub, sum(t, dims). Recompute μ, rstd = 1/√(σ² + eps) and x̂ from x first.
// Hints: dβ and dγ sum g and g·x̂ over every position (every dim but the last). For dx, call
// ĝ = g·γ the gradient reaching x̂; x̂ depends on x directly AND through μ and σ², which
// depend on the whole row: two terms come back subtracted (docs/10, Layer normalisation).
#include <stdexcept>

#include "exercises/layer_norm_backward/layer_norm_backward.h"
#include "tensor/ops.h"

namespace atencion::exercise {

LayerNormGrads layer_norm_backward(const Tensor& x, const Tensor& weight,
                                   const Tensor& grad_output, double eps) {
  // TODO
  (void)x, (void)weight, (void)grad_output, (void)eps;
  throw std::logic_error("layer_norm_backward: not written yet (exercise layer_norm_backward)");
}

}  // namespace atencion::exercise
