// nn/layer_norm.cpp — Lesson: docs/10-transformer.md#layer-normalisation
#include "nn/layer_norm.h"

#include <algorithm>
#include <cmath>
#include <sstream>
#include <stdexcept>
#include <vector>

#include "tensor/threads.h"

namespace atencion::nn {
namespace {

// Forward over `rows` positions of d features:  y = γ·(x − μ)·rstd + β, rstd = 1/√(σ² + eps).
// Saves μ and rstd per row for the backward.
template <typename T>
void layer_norm_forward(const T* x, const T* gamma, const T* beta, int64_t rows, int64_t d,
                        double eps, T* y, double* mean, double* rstd) {
  parallel_for(rows, d, [&](int64_t r) {
    const T* row = x + r * d;
    double sum = 0;
    for (int64_t j = 0; j < d; ++j) sum += static_cast<double>(row[j]);
    const double mu = sum / static_cast<double>(d);
    double squares = 0;
    for (int64_t j = 0; j < d; ++j) {
      const double centred = static_cast<double>(row[j]) - mu;
      squares += centred * centred;
    }
    const double inv_std = 1.0 / std::sqrt(squares / static_cast<double>(d) + eps);
    mean[r] = mu;
    rstd[r] = inv_std;
    for (int64_t j = 0; j < d; ++j)
      y[r * d + j] = static_cast<T>((static_cast<double>(row[j]) - mu) * inv_std) * gamma[j] + beta[j];
  });
}

// Backward. In the forward pass y_j = γ_j x̂_j + β_j with x̂_j = (x_j − μ)·rstd, so
//   dβ_j = Σ_rows g_j              dγ_j = Σ_rows g_j x̂_j
// and, with ĝ_j = g_j γ_j (the gradient reaching x̂), through μ and σ² (both depend on all x):
//   dx_j = rstd · (ĝ_j − mean_k(ĝ_k) − x̂_j · mean_k(ĝ_k x̂_k))
// The two terms subtracted are what the mean and the variance take back.
//
// dγ and dβ sum over all rows. The rows are cut into fixed blocks of kRowBlock; each block adds
// its rows in order into its own partial sums (blocks run in parallel), then every feature adds
// the blocks' partials in block order: the same additions in the same order for any number of
// threads, and each row is read once, contiguously.
constexpr int64_t kRowBlock = 32;

template <typename T>
void layer_norm_backward(const T* x, const T* gamma, const T* g, int64_t rows, int64_t d,
                         const double* mean, const double* rstd, T* dx, T* dgamma, T* dbeta) {
  const int64_t blocks = (rows + kRowBlock - 1) / kRowBlock;
  std::vector<double> block_g(blocks * d, 0.0), block_g_xhat(blocks * d, 0.0);
  parallel_for(blocks, kRowBlock * d, [&](int64_t block) {
    double* sum_g = block_g.data() + block * d;
    double* sum_g_xhat = block_g_xhat.data() + block * d;
    for (int64_t r = block * kRowBlock; r < std::min(rows, (block + 1) * kRowBlock); ++r) {
      const T* x_row = x + r * d;
      const T* g_row = g + r * d;
      const double mu = mean[r], inv_std = rstd[r];
      double mean_ghat = 0, mean_ghat_xhat = 0;
      for (int64_t j = 0; j < d; ++j) {
        const double xhat = (static_cast<double>(x_row[j]) - mu) * inv_std;
        const double ghat = static_cast<double>(g_row[j]) * static_cast<double>(gamma[j]);
        mean_ghat += ghat;
        mean_ghat_xhat += ghat * xhat;
        sum_g[j] += static_cast<double>(g_row[j]);                 // dβ_j, this block's part
        sum_g_xhat[j] += static_cast<double>(g_row[j]) * xhat;    // dγ_j, this block's part
      }
      mean_ghat /= static_cast<double>(d);
      mean_ghat_xhat /= static_cast<double>(d);
      for (int64_t j = 0; j < d; ++j) {
        const double xhat = (static_cast<double>(x_row[j]) - mu) * inv_std;
        const double ghat = static_cast<double>(g_row[j]) * static_cast<double>(gamma[j]);
        dx[r * d + j] = static_cast<T>(inv_std * (ghat - mean_ghat - xhat * mean_ghat_xhat));
      }
    }
  });
  parallel_for(d, blocks, [&](int64_t j) {
    double total_g = 0, total_g_xhat = 0;
    for (int64_t block = 0; block < blocks; ++block) {
      total_g += block_g[block * d + j];
      total_g_xhat += block_g_xhat[block * d + j];
    }
    dbeta[j] = static_cast<T>(total_g);
    dgamma[j] = static_cast<T>(total_g_xhat);
  });
}

}  // namespace

Variable layer_norm(const Variable& x, const Variable& weight, const Variable& bias, double eps) {
  const int64_t d = weight.dim() == 1 ? weight.size(0) : -1;
  if (x.dim() < 1 || d < 1 || x.size(-1) != d || bias.shape() != weight.shape() ||
      x.dtype() != weight.dtype() || x.dtype() != bias.dtype() || !is_floating(x.dtype()))
    throw std::invalid_argument("layer_norm: x " + shape_to_string(x.shape()) + " " +
                                dtype_name(x.dtype()) + ", weight " +
                                shape_to_string(weight.shape()) + ", bias " +
                                shape_to_string(bias.shape()) +
                                ": expected x [..., d] with weight and bias [d] of x's float dtype");
  const Tensor input = x.value().contiguous();
  const Tensor gamma = weight.value().contiguous();
  const Tensor beta = bias.value().contiguous();
  const int64_t rows = input.numel() / d;
  Tensor output = Tensor::empty(input.shape(), input.dtype());
  Tensor mean = Tensor::empty({rows}, DType::Float64);
  Tensor rstd = Tensor::empty({rows}, DType::Float64);
  if (input.dtype() == DType::Float32)
    layer_norm_forward(input.data<float>(), gamma.data<float>(), beta.data<float>(), rows, d, eps,
                       output.data<float>(), mean.data<double>(), rstd.data<double>());
  else
    layer_norm_forward(input.data<double>(), gamma.data<double>(), beta.data<double>(), rows, d,
                       eps, output.data<double>(), mean.data<double>(), rstd.data<double>());

  return record("layer_norm", output, {x, weight, bias},
                [input, gamma, mean, rstd, rows, d](const Tensor& grad_output) -> Grads {
                  const Tensor g = grad_output.contiguous();
                  Tensor dx = Tensor::empty(input.shape(), input.dtype());
                  Tensor dgamma = Tensor::empty({d}, input.dtype());
                  Tensor dbeta = Tensor::empty({d}, input.dtype());
                  if (input.dtype() == DType::Float32)
                    layer_norm_backward(input.data<float>(), gamma.data<float>(), g.data<float>(),
                                        rows, d, mean.data<double>(), rstd.data<double>(),
                                        dx.data<float>(), dgamma.data<float>(),
                                        dbeta.data<float>());
                  else
                    layer_norm_backward(input.data<double>(), gamma.data<double>(),
                                        g.data<double>(), rows, d, mean.data<double>(),
                                        rstd.data<double>(), dx.data<double>(),
                                        dgamma.data<double>(), dbeta.data<double>());
                  return {dx, dgamma, dbeta};
                });
}

LayerNorm::LayerNorm(int64_t d_model, double eps) : d_model_(d_model), eps_(eps) {
  if (d_model < 1 || !(eps > 0))
    throw std::invalid_argument("LayerNorm(d_model=" + std::to_string(d_model) +
                                ", eps=" + std::to_string(eps) + "): d_model >= 1 and eps > 0");
  weight = register_parameter("weight", Tensor::ones({d_model}));
  bias = register_parameter("bias", Tensor::zeros({d_model}));
}

std::string LayerNorm::type_name() const {
  std::ostringstream name;
  name << "LayerNorm(d_model=" << d_model_ << ", eps=" << eps_ << ")";
  return name.str();
}

Variable LayerNorm::forward(const Variable& x) const { return layer_norm(x, weight, bias, eps_); }

}  // namespace atencion::nn
