// exercises/layer_norm_backward/layer_norm_backward.h — exercise "layer_norm_backward"
// (docs/exercises.md#layer_norm_backward). Lesson: docs/10-transformer.md#layer-normalisation
//
// Write it in your own file (start from starter.cpp), then judge it with
//   tools/exercise.sh layer_norm_backward path/to/your_file.cpp
#pragma once

#include "tensor/tensor.h"

namespace atencion::exercise {

struct LayerNormGrads {
  Tensor input;   // dL/dx      [..., d]
  Tensor weight;  // dL/dγ      [d]
  Tensor bias;    // dL/dβ      [d]
};

// The backward of y = γ·x̂ + β, x̂ = (x − μ)/√(σ² + eps), μ and σ² (population) over the last
// dim of x [..., d]: given x, γ and g = dL/dy, the three gradients.
LayerNormGrads layer_norm_backward(const Tensor& x, const Tensor& weight,
                                   const Tensor& grad_output, double eps);

}  // namespace atencion::exercise
