// tensor/bfloat16_matrix.h — a weight matrix kept as bfloat16 for inference, and x·Wᵀ with it.
// Lesson: docs/performance.md#bfloat16-weights
//
// A bfloat16 is the top half of a float32 (tensor/half.h): the same 8 exponent bits, 7 of the 23
// mantissa bits. Rounding to nearest keeps 8 significant bits (the 7 and the implicit leading 1),
// so each weight moves by at most half a unit in its 8th bit: |w16 − w| ≤ 2^-8 · |w|. Kept so,
// a matrix takes half the bytes of float32, and a product that reads every weight once (decoding
// one token) takes about half the time.
//
// The bits are kept in panels of 16 rows, as tensor/packed_rows.h keeps float32 ones, so that
// the one-row product reads W as one stream: panel r holds, for each step p, the 16 values
// W[16 r + i, p] (rows past the last are zeros) in the order
//
//   i = 0 1 2 3  8 9 10 11  4 5 6 7  12 13 14 15
//
// the order in which AVX2 widens 16-bit values: within each 128-bit half, interleaving with
// zeros takes values 0-3 (unpacklo_epi16) or 4-7 (unpackhi_epi16). So the 32 bytes of a step
// give the floats of outputs 0-7 and of 8-15, each in order, in two instructions.
#pragma once

#include <cstdint>
#include <vector>

#include "tensor/tensor.h"

namespace atencion {

class BFloat16Matrix {
 public:
  static constexpr int64_t kPanelRows = 16;

  // `matrix` [rows, cols], float32 or float64: each value rounded to the nearest bfloat16, ties
  // to even (float_to_bfloat16; a float64 is first rounded to float32).
  explicit BFloat16Matrix(const Tensor& matrix);

  int64_t rows() const { return rows_; }
  int64_t cols() const { return cols_; }
  int64_t panels() const { return (rows_ + kPanelRows - 1) / kPanelRows; }
  // Panel r: for each step p, 16 bfloat16 values, W[16 r + i, p] at slot(i).
  const uint16_t* panel(int64_t r) const { return bits_.data() + r * kPanelRows * cols_; }
  // Where row i of a panel sits within a step: rows 4-7 and 8-11 change places (above).
  static constexpr int64_t slot(int64_t i) { return i >= 4 && i < 12 ? i ^ 12 : i; }
  // The bits of W[j, p].
  uint16_t at(int64_t j, int64_t p) const {
    return panel(j / kPanelRows)[p * kPanelRows + slot(j % kPanelRows)];
  }
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
