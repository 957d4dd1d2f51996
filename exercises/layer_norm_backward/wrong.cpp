// exercises/layer_norm_backward/wrong.cpp — treats σ² as a constant: dx = rstd · (ĝ − mean(ĝ)).
// It keeps the mean's term and drops the variance's, − x̂ · mean(ĝ·x̂). dγ and dβ are right.
#include <numeric>
#include <vector>

#include "exercises/layer_norm_backward/layer_norm_backward.h"
#include "tensor/ops.h"

namespace atencion::exercise {

LayerNormGrads layer_norm_backward(const Tensor& x, const Tensor& weight,
                                   const Tensor& grad_output, double eps) {
  const Tensor rstd = rdiv(1.0, sqrt(add(var(x, {-1}, 0, true), eps)));
  const Tensor x_hat = mul(sub(x, mean(x, {-1}, true)), rstd);
  const Tensor g_hat = mul(grad_output, weight);
  std::vector<int64_t> positions(static_cast<size_t>(x.dim() - 1));
  std::iota(positions.begin(), positions.end(), int64_t{0});
  return {mul(rstd, sub(g_hat, mean(g_hat, {-1}, true))), sum(mul(grad_output, x_hat), positions),
          sum(grad_output, positions)};
}

}  // namespace atencion::exercise
