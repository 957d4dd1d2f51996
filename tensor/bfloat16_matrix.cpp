// tensor/bfloat16_matrix.cpp — a matrix kept as bfloat16 in panels of 16 rows, and x·Wᵀ with it.
// Lesson: docs/performance.md#bfloat16-weights
#include "tensor/bfloat16_matrix.h"

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <new>
#include <stdexcept>
#include <string>

#include "tensor/gemm_bfloat16.h"
#include "tensor/half.h"
#include "tensor/threads.h"
#include "tensor/weight_rows.h"

namespace atencion {

BFloat16Matrix::BFloat16Matrix(const Tensor& matrix) {
  if (matrix.dim() != 2 || !is_floating(matrix.dtype()))
    throw std::invalid_argument("BFloat16Matrix: expected a 2-D float32 or float64 matrix, got " +
                                shape_to_string(matrix.shape()) + " " +
                                dtype_name(matrix.dtype()));
  const Tensor values = matrix.to(DType::Float32).contiguous();
  rows_ = matrix.size(0);
  cols_ = matrix.size(1);
  bits_ = aligned_array<uint16_t>(static_cast<std::size_t>(panels() * kPanelRows * cols_));
  const float* from = values.data<float>();
  parallel_for(panels(), kPanelRows * cols_, [&](int64_t r) {
    uint16_t* to = bits_.get() + r * kPanelRows * cols_;
    std::memset(to, 0, static_cast<std::size_t>(kPanelRows * cols_) * 2);  // zeros past the last row
    for (int64_t i = 0; i < kPanelRows && r * kPanelRows + i < rows_; ++i)
      for (int64_t p = 0; p < cols_; ++p)
        to[p * kPanelRows + slot(i)] = float_to_bfloat16(from[(r * kPanelRows + i) * cols_ + p]);
  });
}

Tensor BFloat16Matrix::to_float32() const {
  Tensor out = Tensor::uninitialized({rows_, cols_});
  float* to = out.data<float>();
  for (int64_t j = 0; j < rows_; ++j)
    for (int64_t p = 0; p < cols_; ++p) to[j * cols_ + p] = bfloat16_to_float(at(j, p));
  return out;
}

Tensor matmul_bfloat16(const Tensor& x, const BFloat16Matrix& weight) {
  const int64_t k = weight.cols(), n = weight.rows();
  detail::check_weight_rows(x.dtype() == DType::Float32 && x.dim() >= 1 && x.size(-1) == k, x,
                            "matmul_bfloat16", "float32 ending in", n, k);
  const Tensor rows = x.contiguous();
  int64_t m = 1;
  for (int64_t d = 0; d + 1 < x.dim(); ++d) m *= x.size(d);
  Tensor y = detail::weight_rows_output(x, n);
  const GemmShape s{m, n, k, /*trans_a=*/false, /*trans_b=*/true, k, k, n};
  gemm_bfloat16(s, rows.data<float>(), weight, y.data<float>(), /*accumulate=*/false);
  return y;
}

std::vector<Tensor> matmul_bfloat16_row_many(const Tensor& x,
                                             std::span<const BFloat16Matrix* const> weights) {
  return detail::one_row_times_each(
      x, weights, "matmul_bfloat16_row_many",
      [&](const float* row, std::span<float* const> outputs) {
        gemm_bfloat16_row_many(row, 1, weights, outputs, /*accumulate=*/false);
      });
}

}  // namespace atencion
