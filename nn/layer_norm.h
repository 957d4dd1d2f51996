// nn/layer_norm.h — normalise each token's features to mean 0 and variance 1, then let the
// model rescale them: the "Norm" of the paper's "Add & Norm".
// Lesson: docs/10-transformer.md#layer-normalisation
//
// Over the last dim (d features) of x, for each position separately:
//   μ = (1/d) Σ_j x_j        σ² = (1/d) Σ_j (x_j − μ)²      (population variance, as torch)
//   x̂_j = (x_j − μ) / √(σ² + eps)
//   y_j = γ_j · x̂_j + β_j                 γ = weight (starts at 1), β = bias (starts at 0)
//
// One fused autograd op: the forward keeps μ and 1/√(σ² + eps) per position, and the backward
// is written out in layer_norm.cpp (the same formulas torch uses).
#pragma once

#include <cstdint>
#include <string>

#include "nn/module.h"

namespace atencion::nn {

class LayerNorm : public Module {
 public:
  explicit LayerNorm(int64_t d_model, double eps = 1e-5);

  // x [..., d_model] -> the same shape
  Variable forward(const Variable& x) const;
  Variable operator()(const Variable& x) const { return forward(x); }

  std::string type_name() const override;
  int64_t d_model() const { return d_model_; }
  double eps() const { return eps_; }

  Variable weight;  // γ [d_model]
  Variable bias;    // β [d_model]

 private:
  int64_t d_model_;
  double eps_;
};

// The op itself, for any x [..., d] with weight and bias [d].
Variable layer_norm(const Variable& x, const Variable& weight, const Variable& bias, double eps);

}  // namespace atencion::nn
