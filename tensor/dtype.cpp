// tensor/dtype.cpp — the element types a tensor can hold, and the small shape helpers.
// Lesson: docs/01-tensor.md#shape-strides-offset
#include <sstream>
#include <stdexcept>
#include <string>

#include "tensor/tensor.h"

namespace atencion {

std::size_t dtype_size(DType dtype) {
  switch (dtype) {
    case DType::Float32: return 4;
    case DType::Float64: return 8;
    case DType::Int64: return 8;
    case DType::Bool: return 1;
  }
  throw std::invalid_argument("dtype_size: unknown dtype");
}

const char* dtype_name(DType dtype) {
  switch (dtype) {
    case DType::Float32: return "float32";
    case DType::Float64: return "float64";
    case DType::Int64: return "int64";
    case DType::Bool: return "bool";
  }
  return "unknown";
}

bool is_floating(DType dtype) { return dtype == DType::Float32 || dtype == DType::Float64; }

std::string shape_to_string(const Shape& shape) {
  std::ostringstream out;
  out << '[';
  for (std::size_t d = 0; d < shape.size(); ++d) out << (d ? ", " : "") << shape[d];
  out << ']';
  return out.str();
}

// The product of the sizes, 0 as soon as one size is 0. Every stride of a row-major layout is
// a product of some of the sizes, so checking that the non-zero ones multiply without
// overflowing int64 keeps contiguous_strides' products in range too.
int64_t shape_numel(const Shape& shape) {
  int64_t numel = 1;
  bool has_zero = false;
  for (int64_t size : shape) {
    if (size == 0) {
      has_zero = true;
    } else if (__builtin_mul_overflow(numel, size, &numel)) {
      throw std::invalid_argument("shape " + shape_to_string(shape) +
                                  " has more elements than int64 can count");
    }
  }
  return has_zero ? 0 : numel;
}

// Row-major: the last dim moves fastest, so stride[d] = size[d+1] * ... * size[n-1].
Shape contiguous_strides(const Shape& shape) {
  shape_numel(shape);  // throws when a stride would overflow int64
  Shape strides(shape.size());
  int64_t stride = 1;
  for (std::size_t d = shape.size(); d-- > 0;) {
    strides[d] = stride;
    stride *= shape[d];
  }
  return strides;
}

int64_t normalize_dim(const char* op, int64_t dim, int64_t ndim) {
  if (dim < -ndim || dim >= ndim) {
    // A rank-0 tensor still accepts dim 0 or -1 where torch does (e.g. sum of a scalar).
    if (ndim == 0 && (dim == 0 || dim == -1)) return 0;
    throw std::out_of_range(std::string(op) + ": dim " + std::to_string(dim) +
                            " out of range for a tensor of rank " + std::to_string(ndim));
  }
  return dim < 0 ? dim + ndim : dim;
}

}  // namespace atencion
