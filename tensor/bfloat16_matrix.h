// tensor/bfloat16_matrix.h — a weight matrix kept as bfloat16 for inference, and x·Wᵀ with it.
// Lesson: docs/performance.md#bfloat16-weights
//
// A bfloat16 is the top half of a float32 (tensor/half.h): the same 8 exponent bits, 7 of the 23
// mantissa bits. Rounding to nearest keeps 8 significant bits (the 7 and the implicit leading 1),
// so each weight moves by at most half a unit in its 8th bit: |w16 − w| ≤ 2^-8 · |w|. Kept so,
// a matrix takes half the bytes of float32, and a product that reads every weight once (decoding
// one token) takes about half the time.
//
// The bits are kept in panels of 64 rows, so that the one-row product reads W as one stream:
// panel r holds, for each step p, the 64 values W[64 r + i, p] (rows past the last are zeros),
// 128 bytes, two cache lines, in four groups of 16 rows, each group in the order
//
//   i = 0 1 2 3  8 9 10 11  4 5 6 7  12 13 14 15     (+ 16, 32, 48 for the other groups)
//
// the order in which AVX2 widens 16-bit values: within each 128-bit half, interleaving with
// zeros takes values 0-3 (unpacklo_epi16) or 4-7 (unpackhi_epi16). So the 32 bytes of a group
// give the floats of its outputs 0-7 and of 8-15, each in order, in two instructions.
//
// Why 64 rows and not 16 as float32's panels (tensor/packed_rows.h): a core streams one run of
// memory faster than several at once. Reading 16-row panels two at a time (two streams, 32 bytes
// a step each) a core took 17-19 GB/s of a W far larger than the caches, where one stream of
// the same bytes went at 28-30 (AMD EPYC, family 26, one thread, summing an array: 30-32;
// docs/performance.md#bfloat16-weights). A 64-row panel is one stream of 128 bytes a step, with
// eight independent sums of 8 outputs, enough that the multiply-adds keep up with it.
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <vector>

#include "tensor/aligned_array.h"
#include "tensor/tensor.h"

namespace atencion {

class BFloat16Matrix {
 public:
  static constexpr int64_t kPanelRows = 64;

  // `matrix` [rows, cols], float32 or float64: each value rounded to the nearest bfloat16, ties
  // to even (float_to_bfloat16; a float64 is first rounded to float32).
  explicit BFloat16Matrix(const Tensor& matrix);

  int64_t rows() const { return rows_; }
  int64_t cols() const { return cols_; }
  int64_t panels() const { return (rows_ + kPanelRows - 1) / kPanelRows; }
  // Panel r (64-byte aligned): for each step p, 64 bfloat16 values, W[64 r + i, p] at slot(i).
  const uint16_t* panel(int64_t r) const { return bits_.get() + r * kPanelRows * cols_; }
  // Where row i of a panel sits within a step: in each group of 16 rows, rows 4-7 and 8-11
  // change places (above).
  static constexpr int64_t slot(int64_t i) {
    const int64_t in_group = i % 16;
    return in_group >= 4 && in_group < 12 ? i ^ 12 : i;
  }
  // The bits of W[j, p].
  uint16_t at(int64_t j, int64_t p) const {
    return panel(j / kPanelRows)[p * kPanelRows + slot(j % kPanelRows)];
  }
  // The values as float32 [rows, cols] (exact: a bfloat16 widens to float32 without rounding).
  Tensor to_float32() const;

 private:
  int64_t rows_, cols_;
  AlignedArray<uint16_t> bits_;
};

// x [..., k] float32 -> y [..., n] = x · Wᵀ for W [n, k] (a Linear's layout), float32 sums
// (gemm_bfloat16, tensor/gemm_bfloat16.h). Throws std::invalid_argument naming both shapes when
// x is not float32 or does not end in k.
Tensor matmul_bfloat16(const Tensor& x, const BFloat16Matrix& weight);
// x [..., k] float32 holding one row (every leading dim 1) -> y_m = matmul_bfloat16(x,
// *weights[m]) for each m, the same bits, in one product (gemm_bfloat16_row_many).
std::vector<Tensor> matmul_bfloat16_row_many(const Tensor& x,
                                             std::span<const BFloat16Matrix* const> weights);

}  // namespace atencion
