// tensor/copy.cpp — copies: dtype conversion, contiguous(), clone(), copy_() and fill_().
// Lesson: docs/01-tensor.md#views
//
// A view shares storage; these are the only Tensor methods that write new memory.
#include <stdexcept>
#include <string>

#include "tensor/detail/strided.h"
#include "tensor/ops.h"
#include "tensor/tensor.h"

namespace atencion {

void Tensor::copy_(const Tensor& source) {
  detail::check_defined("copy_", *this);
  detail::check_defined("copy_", source);
  const Shape shape = broadcast_shapes("copy_", shape_, source.shape());
  if (shape != shape_) {
    throw std::invalid_argument("copy_: source of shape " + shape_to_string(source.shape()) +
                                " does not broadcast to " + shape_to_string(shape_));
  }
  // Reading the storage we are writing through another layout would race: copy it first.
  const Tensor from = source.storage() == storage_ ? source.clone() : source;
  detail::dispatch_any(dtype_, [&](auto out_tag) {
    using Out = decltype(out_tag);
    detail::dispatch_any(from.dtype(), [&](auto in_tag) {
      using In = decltype(in_tag);
      detail::map_elements<Out, In>(*this, {&from}, [](In v) { return static_cast<Out>(v); });
    });
  });
}

void Tensor::fill_(double value) {
  detail::check_defined("fill_", *this);
  detail::dispatch_any(dtype_, [&](auto tag) {
    using T = decltype(tag);
    const T filler = static_cast<T>(value);
    detail::map_elements<T>(*this, {}, [filler]() { return filler; });
  });
}

Tensor Tensor::to(DType dtype) const {
  if (dtype == dtype_) return *this;
  Tensor result = uninitialized(shape_, dtype);
  result.copy_(*this);
  return result;
}

Tensor Tensor::contiguous() const {
  if (is_contiguous()) return *this;
  return clone();
}

Tensor Tensor::clone() const {
  detail::check_defined("clone", *this);
  Tensor result = uninitialized(shape_, dtype_);
  result.copy_(*this);
  return result;
}

}  // namespace atencion
