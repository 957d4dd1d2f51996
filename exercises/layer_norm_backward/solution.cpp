// exercises/layer_norm_backward/solution.cpp — the formulas of nn/layer_norm.cpp's backward,
// written with whole-tensor ops instead of its fused loops:
//   dβ = Σ g    dγ = Σ g·x̂    dx = rstd · (ĝ − mean(ĝ) − x̂ · mean(ĝ·x̂)),  ĝ = g·γ
#include <numeric>
#include <vector>

#include "exercises/layer_norm_backward/layer_norm_backward.h"
#include "tensor/ops.h"

namespace atencion::exercise {

LayerNormGrads layer_norm_backward(const Tensor& x, const Tensor& weight,
                                   const Tensor& grad_output, double eps) {
  const Tensor mu = mean(x, {-1}, /*keepdim=*/true);
  const Tensor rstd = rdiv(1.0, sqrt(add(var(x, {-1}, /*correction=*/0, true), eps)));
  const Tensor x_hat = mul(sub(x, mu), rstd);
  const Tensor g_hat = mul(grad_output, weight);
  const Tensor dx = mul(rstd, sub(sub(g_hat, mean(g_hat, {-1}, true)),
                                  mul(x_hat, mean(mul(g_hat, x_hat), {-1}, true))));
  std::vector<int64_t> positions(static_cast<size_t>(x.dim() - 1));  // every dim but the last
  std::iota(positions.begin(), positions.end(), int64_t{0});
  return {dx, sum(mul(grad_output, x_hat), positions), sum(grad_output, positions)};
}

}  // namespace atencion::exercise
