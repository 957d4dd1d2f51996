// tensor/weight_rows.h — what the products of rows x [..., k] with a weight W [n, k] kept in a
// form of its own (PackedRows, BFloat16Matrix) share: the check of x, y's shape [..., n], and
// one row times several such weights.
#pragma once

#include <cstdint>
#include <stdexcept>
#include <span>
#include <string>
#include <vector>

#include "tensor/tensor.h"

namespace atencion::detail {

// Throws std::invalid_argument "OP: x [shape] dtype must be WANTED k (W is [n, k])" unless ok.
inline void check_weight_rows(bool ok, const Tensor& x, const char* op, const char* wanted,
                              int64_t n, int64_t k) {
  if (ok) return;
  throw std::invalid_argument(std::string(op) + ": x " + shape_to_string(x.shape()) + " " +
                              dtype_name(x.dtype()) + " must be " + wanted + " " +
                              std::to_string(k) + " (W is [" + std::to_string(n) + ", " +
                              std::to_string(k) + "])");
}

// y for x · Wᵀ: x's shape with its last size n, not yet written.
inline Tensor weight_rows_output(const Tensor& x, int64_t n) {
  Shape shape = x.shape();
  shape.back() = n;
  return Tensor::uninitialized(shape);
}

// x [..., k] float32 holding one row (every leading dim 1) times each W_m of `weights` (their
// rows() and cols()): y_m [..., n_m], each checked as `op`, filled by many(row, outputs) with
// the row's k values and y_m's data pointers.
template <typename Weight, typename Many>
std::vector<Tensor> one_row_times_each(const Tensor& x, std::span<const Weight* const> weights,
                                       const char* op, Many&& many) {
  std::vector<Tensor> y;
  std::vector<float*> outputs;
  for (const Weight* weight : weights) {
    const int64_t k = weight->cols(), n = weight->rows();
    check_weight_rows(
        x.dtype() == DType::Float32 && x.dim() >= 1 && x.size(-1) == k && x.numel() == k, x, op,
        "one float32 row of", n, k);
    y.push_back(weight_rows_output(x, n));
    outputs.push_back(y.back().data<float>());
  }
  const Tensor row = x.contiguous();
  many(row.data<float>(), outputs);
  return y;
}

}  // namespace atencion::detail
