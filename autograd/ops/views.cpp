// autograd/ops/views.cpp — reshape, transpose, permute, narrow, select, expand, ...
// Lesson: docs/02-autograd.md#views
//
// A view moves elements around without changing them, so its backward moves the gradient back:
// each element of g goes to the input element it was read from. Elements a window left out get
// 0; an element read several times (expand) gets the sum.
#include <numeric>

#include "autograd/ops.h"

namespace atencion {

namespace {

// zeros of `shape`, with g written into the part `window` picks out (narrow, slice, select).
template <typename Window>
Tensor scatter_into_zeros(const Tensor& g, const Shape& shape, Window window) {
  Tensor grad = Tensor::zeros(shape, g.dtype());
  Tensor part = window(grad);  // a view of grad: writing into it writes into grad
  part.copy_(g);
  return grad;
}

// The backward of every op that only changes the shape: dx = g reshaped to x's shape.
BackwardFn reshape_back(const Variable& x) {
  const Shape x_shape = x.shape();
  return [=](const Tensor& g) -> Grads { return {g.reshape(x_shape)}; };
}

}  // namespace

// y = x with another shape (same elements, same order)    dx = g reshaped to x's shape
Variable reshape(const Variable& x, const Shape& shape) {
  return record("reshape", x.value().reshape(shape), {x}, reshape_back(x));
}
Variable view(const Variable& x, const Shape& shape) {
  return record("view", x.value().view(shape), {x}, reshape_back(x));
}
Variable flatten(const Variable& x, int64_t start_dim, int64_t end_dim) {
  return record("flatten", x.value().flatten(start_dim, end_dim), {x}, reshape_back(x));
}
Variable squeeze(const Variable& x, int64_t dim) {
  return record("squeeze", x.value().squeeze(dim), {x}, reshape_back(x));
}
Variable unsqueeze(const Variable& x, int64_t dim) {
  return record("unsqueeze", x.value().unsqueeze(dim), {x}, reshape_back(x));
}

// y = x with dims d0 and d1 swapped        dx = g with them swapped back
Variable transpose(const Variable& x, int64_t dim0, int64_t dim1) {
  return record("transpose", x.value().transpose(dim0, dim1), {x},
                [=](const Tensor& g) -> Grads { return {g.transpose(dim0, dim1)}; });
}

// y.dim(i) = x.dim(dims[i])               dx = g permuted by the inverse: x.dim(dims[i]) = g.dim(i)
Variable permute(const Variable& x, const std::vector<int64_t>& dims) {
  Tensor y = x.value().permute(dims);  // checks dims first
  std::vector<int64_t> inverse(dims.size());
  for (std::size_t i = 0; i < dims.size(); ++i) {
    inverse[normalize_dim("permute", dims[i], x.dim())] = static_cast<int64_t>(i);
  }
  return record("permute", std::move(y), {x},
                [=](const Tensor& g) -> Grads { return {g.permute(inverse)}; });
}

// y = x[..., start : start+length, ...]    dx = zeros with g in that window
Variable narrow(const Variable& x, int64_t dim, int64_t start, int64_t length) {
  const Shape x_shape = x.shape();
  return record("narrow", x.value().narrow(dim, start, length), {x},
                [=](const Tensor& g) -> Grads {
                  return {scatter_into_zeros(g, x_shape, [&](const Tensor& grad) {
                    return grad.narrow(dim, start, length);
                  })};
                });
}

// y = x[..., start : end : step, ...]      dx = zeros with g at the picked positions
Variable slice(const Variable& x, int64_t dim, int64_t start, int64_t end, int64_t step) {
  const Shape x_shape = x.shape();
  return record("slice", x.value().slice(dim, start, end, step), {x},
                [=](const Tensor& g) -> Grads {
                  return {scatter_into_zeros(g, x_shape, [&](const Tensor& grad) {
                    return grad.slice(dim, start, end, step);
                  })};
                });
}

// y = x[..., index, ...] (dim removed)     dx = zeros with g at that index
Variable select(const Variable& x, int64_t dim, int64_t index) {
  const Shape x_shape = x.shape();
  return record("select", x.value().select(dim, index), {x},
                [=](const Tensor& g) -> Grads {
                  return {scatter_into_zeros(g, x_shape, [&](const Tensor& grad) {
                    return grad.select(dim, index);
                  })};
                });
}

// y = x broadcast to `shape` (size-1 dims repeated)   dx = g summed over the repeats
Variable expand(const Variable& x, const Shape& shape) {
  const Shape x_shape = x.shape();
  return record("expand", x.value().expand(shape), {x},
                [=](const Tensor& g) -> Grads { return {sum_to_shape(g, x_shape)}; });
}

// y = x laid out row-major (a copy only if needed)   dx = g
Variable contiguous(const Variable& x) {
  return record("contiguous", x.value().contiguous(), {x},
                [](const Tensor& g) -> Grads { return {g}; });
}

}  // namespace atencion
