// tensor/bfloat16_matrix.h — a weight matrix kept as bfloat16 for inference, and x·Wᵀ with it.
// Lesson: docs/performance.md#bfloat16-weights
//
// A bfloat16 is the top half of a float32 (tensor/half.h): the same 8 exponent bits, 7 of the 23
// mantissa bits. Rounding to nearest keeps 8 significant bits (the 7 and the implicit leading 1),
// so each weight moves by at most half a unit in its 8th bit: |w16 − w| ≤ 2^-8 · |w|. Kept so,
// a matrix takes half the bytes of float32, and a product that reads every weight once (decoding
// one token) takes about half the time.
#pragma once

#include <cstdint>
#include <vector>

#include "tensor/tensor.h"

namespace atencion {

class BFloat16Matrix {
 public:
  // `matrix` [rows, cols], float32 or float64: each value rounded to the nearest bfloat16, ties
  // to even (float_to_bfloat16; a float64 is first rounded to float32).
  explicit BFloat16Matrix(const Tensor& matrix);

  int64_t rows() const { return rows_; }
  int64_t cols() const { return cols_; }
  const uint16_t* data() const { return bits_.data(); }  // row-major, rows x cols
  // The values as float32 [rows, cols] (exact: a bfloat16 widens to float32 without rounding).
  Tensor to_float32() const;

 private:
  int64_t rows_, cols_;
  std::vector<uint16_t> bits_;
};

// x [..., k] float32 -> y [..., n] = x · Wᵀ for W [n, k] (a Linear's layout), float32 sums
// (gemm_bfloat16, tensor/gemm_bfloat16.h). Throws std::invalid_argument naming both shapes when
// x is not float32 or does not end in k.
Tensor matmul_bfloat16(const Tensor& x, const BFloat16Matrix& weight);

}  // namespace atencion
