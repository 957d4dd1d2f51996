// tensor/tensor.cpp — a tensor's layout, creation and element access.
// Lesson: docs/01-tensor.md#shape-strides-offset
//
// Element (i0, ..., in-1) lives at storage[offset + i0*stride[0] + ... + in-1*stride[n-1]].
#include <cmath>
#include <stdexcept>
#include <string>

#include "tensor/detail/strided.h"
#include "tensor/tensor.h"

namespace atencion {

namespace {

void check_shape(const char* op, const Shape& shape) {
  for (int64_t size : shape) {
    if (size < 0) {
      throw std::invalid_argument(std::string(op) + ": negative size in shape " +
                                  shape_to_string(shape));
    }
  }
}

// The C++ type that stores each dtype, for data<T>()'s check.
template <typename T> constexpr bool stores(DType dtype);
template <> constexpr bool stores<float>(DType dtype) { return dtype == DType::Float32; }
template <> constexpr bool stores<double>(DType dtype) { return dtype == DType::Float64; }
template <> constexpr bool stores<int64_t>(DType dtype) { return dtype == DType::Int64; }
template <> constexpr bool stores<bool>(DType dtype) { return dtype == DType::Bool; }
template <> constexpr bool stores<uint8_t>(DType dtype) { return dtype == DType::Bool; }

// Bytes for a contiguous `shape` of `dtype`, refusing a count that overflows.
std::size_t storage_bytes(const char* op, const Shape& shape, DType dtype) {
  const int64_t numel = shape_numel(shape);
  std::size_t nbytes = 0;
  if (__builtin_mul_overflow(static_cast<std::size_t>(numel), dtype_size(dtype), &nbytes)) {
    throw std::invalid_argument(std::string(op) + ": shape " + shape_to_string(shape) + " of " +
                                dtype_name(dtype) + " needs more bytes than memory can address");
  }
  return nbytes;
}

}  // namespace

Tensor::Tensor(std::shared_ptr<Storage> storage, Shape shape, Shape strides, int64_t offset,
               DType dtype)
    : storage_(std::move(storage)),
      shape_(std::move(shape)),
      strides_(std::move(strides)),
      offset_(offset),
      dtype_(dtype) {
  if (shape_.size() != strides_.size()) {
    throw std::invalid_argument("Tensor: shape " + shape_to_string(shape_) + " and strides " +
                                shape_to_string(strides_) + " have different ranks");
  }
}

// ---- creation ------------------------------------------------------------------------------

Tensor Tensor::empty(const Shape& shape, DType dtype) {
  check_shape("empty", shape);
  auto storage = std::make_shared<Storage>(storage_bytes("empty", shape, dtype));
  return Tensor(std::move(storage), shape, contiguous_strides(shape), 0, dtype);
}

Tensor Tensor::uninitialized(const Shape& shape, DType dtype) {
  check_shape("uninitialized", shape);
  auto storage =
      std::make_shared<Storage>(storage_bytes("uninitialized", shape, dtype), /*zero_fill=*/false);
  return Tensor(std::move(storage), shape, contiguous_strides(shape), 0, dtype);
}

Tensor Tensor::zeros(const Shape& shape, DType dtype) { return empty(shape, dtype); }

Tensor Tensor::ones(const Shape& shape, DType dtype) { return full(shape, 1.0, dtype); }

Tensor Tensor::full(const Shape& shape, double value, DType dtype) {
  Tensor result = empty(shape, dtype);
  result.fill_(value);
  return result;
}

Tensor Tensor::scalar(double value, DType dtype) { return full({}, value, dtype); }

Tensor Tensor::arange(double start, double end, double step, DType dtype) {
  if (step == 0) throw std::invalid_argument("arange: step must be nonzero");
  if ((end - start) * step < 0) {
    throw std::invalid_argument("arange: the step " + std::to_string(step) +
                                " does not lead from " + std::to_string(start) + " to " +
                                std::to_string(end));
  }
  const auto count = static_cast<int64_t>(std::ceil((end - start) / step));
  Tensor result = empty({count}, dtype);
  for (int64_t i = 0; i < count; ++i) result.set({i}, start + static_cast<double>(i) * step);
  return result;
}

Tensor Tensor::from_vector(const std::vector<double>& values, const Shape& shape, DType dtype) {
  check_shape("from_vector", shape);
  if (static_cast<int64_t>(values.size()) != shape_numel(shape)) {
    throw std::invalid_argument("from_vector: " + std::to_string(values.size()) +
                                " values do not fill shape " + shape_to_string(shape) + " (" +
                                std::to_string(shape_numel(shape)) + " elements)");
  }
  Tensor result = empty(shape, dtype);
  detail::dispatch_any(dtype, [&](auto tag) {
    using T = decltype(tag);
    T* out = result.data<T>();
    for (std::size_t i = 0; i < values.size(); ++i) out[i] = static_cast<T>(values[i]);
  });
  return result;
}

Tensor Tensor::from_vector(const std::vector<float>& values, const Shape& shape) {
  return from_vector(std::vector<double>(values.begin(), values.end()), shape, DType::Float32);
}

Tensor Tensor::from_ids(const std::vector<int64_t>& ids, const Shape& shape) {
  check_shape("from_ids", shape);
  if (static_cast<int64_t>(ids.size()) != shape_numel(shape)) {
    throw std::invalid_argument("from_ids: " + std::to_string(ids.size()) +
                                " ids do not fill shape " + shape_to_string(shape));
  }
  Tensor result = empty(shape, DType::Int64);
  std::copy(ids.begin(), ids.end(), result.data<int64_t>());
  return result;
}

NestedValues::NestedValues(double v) : is_scalar(true), value(v) {}
NestedValues::NestedValues(std::initializer_list<NestedValues> nested)
    : is_scalar(false), rows(nested) {}

namespace {
// Depth-first: the shape comes from the first entry at each level; every row must agree.
void infer_nested_shape(const NestedValues& node, std::size_t depth, Shape& shape) {
  if (node.is_scalar) return;
  if (depth == shape.size()) shape.push_back(static_cast<int64_t>(node.rows.size()));
  if (!node.rows.empty()) infer_nested_shape(node.rows.front(), depth + 1, shape);
}
void flatten_nested(const NestedValues& node, std::size_t depth, const Shape& shape,
                    std::vector<double>& out) {
  if (node.is_scalar != (depth == shape.size()) ||
      (!node.is_scalar && static_cast<int64_t>(node.rows.size()) != shape[depth])) {
    throw std::invalid_argument("Tensor::from: ragged nested values: expected shape " +
                                shape_to_string(shape));
  }
  if (node.is_scalar) {
    out.push_back(node.value);
    return;
  }
  for (const NestedValues& row : node.rows) flatten_nested(row, depth + 1, shape, out);
}
}  // namespace

Tensor Tensor::from(const NestedValues& values, DType dtype) {
  Shape shape;
  infer_nested_shape(values, 0, shape);
  std::vector<double> flat;
  flatten_nested(values, 0, shape, flat);
  return from_vector(flat, shape, dtype);
}

Tensor Tensor::zeros_like(const Tensor& other) { return zeros(other.shape(), other.dtype()); }

// ---- what it is ----------------------------------------------------------------------------

int64_t Tensor::numel() const { return shape_numel(shape_); }

int64_t Tensor::size(int64_t d) const {
  if (dim() == 0) throw std::invalid_argument("size: a rank-0 tensor has no dims");
  return shape_[normalize_dim("size", d, dim())];
}

// Row-major with no gaps; size-1 dims may have any stride (they are never stepped through).
bool Tensor::is_contiguous() const {
  int64_t expected = 1;
  for (int64_t d = dim() - 1; d >= 0; --d) {
    if (shape_[d] == 1) continue;
    if (strides_[d] != expected) return false;
    expected *= shape_[d];
  }
  return true;
}

template <typename T>
T* Tensor::data() {
  if (!defined()) throw std::invalid_argument("data: the tensor is undefined");
  if (!stores<T>(dtype_)) {
    throw std::invalid_argument(std::string("data: the tensor holds ") + dtype_name(dtype_) +
                                ", not the requested element type");
  }
  return static_cast<T*>(storage_->data()) + offset_;
}

template <typename T>
const T* Tensor::data() const {
  return const_cast<Tensor*>(this)->data<T>();
}

template float* Tensor::data<float>();
template double* Tensor::data<double>();
template int64_t* Tensor::data<int64_t>();
template bool* Tensor::data<bool>();
template uint8_t* Tensor::data<uint8_t>();
template const float* Tensor::data<float>() const;
template const double* Tensor::data<double>() const;
template const int64_t* Tensor::data<int64_t>() const;
template const bool* Tensor::data<bool>() const;
template const uint8_t* Tensor::data<uint8_t>() const;

// ---- reading values --------------------------------------------------------------------------

namespace {
int64_t element_offset(const Tensor& t, const std::vector<int64_t>& index) {
  if (static_cast<int64_t>(index.size()) != t.dim()) {
    throw std::invalid_argument("at: index of length " + std::to_string(index.size()) +
                                " for a tensor of shape " + shape_to_string(t.shape()));
  }
  int64_t offset = 0;
  for (int64_t d = 0; d < t.dim(); ++d) {
    int64_t i = index[d] < 0 ? index[d] + t.shape()[d] : index[d];
    if (i < 0 || i >= t.shape()[d]) {
      throw std::out_of_range("at: index " + std::to_string(index[d]) + " out of range for dim " +
                              std::to_string(d) + " of size " + std::to_string(t.shape()[d]));
    }
    offset += i * t.strides()[d];
  }
  return offset;
}
}  // namespace

double Tensor::item() const {
  if (numel() != 1) {
    throw std::invalid_argument("item: the tensor has " + std::to_string(numel()) +
                                " elements (shape " + shape_to_string(shape_) + "), not 1");
  }
  return at(std::vector<int64_t>(dim(), 0));
}

double Tensor::at(const std::vector<int64_t>& index) const {
  const int64_t offset = element_offset(*this, index);
  return detail::dispatch_any(dtype_, [&](auto tag) {
    using T = decltype(tag);
    return static_cast<double>(data<T>()[offset]);
  });
}

void Tensor::set(const std::vector<int64_t>& index, double value) {
  const int64_t offset = element_offset(*this, index);
  detail::dispatch_any(dtype_, [&](auto tag) {
    using T = decltype(tag);
    data<T>()[offset] = static_cast<T>(value);
  });
}

std::vector<double> Tensor::to_vector() const {
  const Tensor dense = contiguous();
  return detail::dispatch_any(dtype_, [&](auto tag) {
    using T = decltype(tag);
    const T* values = dense.data<T>();
    return std::vector<double>(values, values + dense.numel());
  });
}

std::vector<int64_t> Tensor::to_ids() const {
  if (dtype_ != DType::Int64 && dtype_ != DType::Bool) {
    throw std::invalid_argument(std::string("to_ids: expected an int64 or bool tensor, got ") +
                                dtype_name(dtype_));
  }
  const Tensor ids = to(DType::Int64).contiguous();
  const int64_t* values = ids.data<int64_t>();
  return std::vector<int64_t>(values, values + ids.numel());
}

}  // namespace atencion
