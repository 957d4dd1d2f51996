// tensor/bfloat16_matrix.cpp — a matrix kept as bfloat16, and x·Wᵀ with it.
// Lesson: docs/performance.md#bfloat16-weights
#include "tensor/bfloat16_matrix.h"

#include <stdexcept>
#include <string>

#include "tensor/gemm_bfloat16.h"
#include "tensor/half.h"
#include "tensor/threads.h"

namespace atencion {

BFloat16Matrix::BFloat16Matrix(const Tensor& matrix) {
  if (matrix.dim() != 2 || !is_floating(matrix.dtype()))
    throw std::invalid_argument("BFloat16Matrix: expected a 2-D float32 or float64 matrix, got " +
                                shape_to_string(matrix.shape()) + " " +
                                dtype_name(matrix.dtype()));
  const Tensor values = matrix.to(DType::Float32).contiguous();
  rows_ = matrix.size(0);
  cols_ = matrix.size(1);
  bits_.resize(static_cast<size_t>(rows_ * cols_));
  const float* from = values.data<float>();
  parallel_for(static_cast<int64_t>(bits_.size()), 1,
               [&](int64_t i) { bits_[i] = float_to_bfloat16(from[i]); });
}

Tensor BFloat16Matrix::to_float32() const {
  Tensor out = Tensor::uninitialized({rows_, cols_});
  float* to = out.data<float>();
  for (size_t i = 0; i < bits_.size(); ++i) to[i] = bfloat16_to_float(bits_[i]);
  return out;
}

Tensor matmul_bfloat16(const Tensor& x, const BFloat16Matrix& weight) {
  const int64_t k = weight.cols(), n = weight.rows();
  if (x.dtype() != DType::Float32 || x.dim() < 1 || x.size(-1) != k)
    throw std::invalid_argument("matmul_bfloat16: x " + shape_to_string(x.shape()) + " " +
                                dtype_name(x.dtype()) + " must be float32 ending in " +
                                std::to_string(k) + " (W is [" + std::to_string(n) + ", " +
                                std::to_string(k) + "])");
  const Tensor rows = x.contiguous();
  Shape shape = x.shape();
  int64_t m = 1;
  for (size_t d = 0; d + 1 < shape.size(); ++d) m *= shape[d];
  shape.back() = n;
  Tensor y = Tensor::uninitialized(shape);
  const GemmShape s{m, n, k, /*trans_a=*/false, /*trans_b=*/true, k, k, n};
  gemm_bfloat16(s, rows.data<float>(), weight.data(), y.data<float>(), /*accumulate=*/false);
  return y;
}

}  // namespace atencion
