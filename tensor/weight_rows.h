// tensor/weight_rows.h — what the products of rows x [..., k] with a weight W [n, k] kept in a
// form of its own (PackedRows, BFloat16Matrix) share: the check of x, and y's shape [..., n].
#pragma once

#include <cstdint>
#include <stdexcept>
#include <string>

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

}  // namespace atencion::detail
