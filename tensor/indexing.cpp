// tensor/indexing.cpp — picking rows by id (index_select, gather) and their adjoints
// (index_add, scatter_add), which add values back where they were picked from.
// Lesson: docs/01-tensor.md#indexing
//
// index_select(x, 0, ids) is an embedding lookup; index_add is its backward.
// gather(log_probs, 1, targets) picks each target's log-probability; scatter_add is its backward.
#include <cstring>
#include <stdexcept>
#include <string>

#include "tensor/detail/strided.h"
#include "tensor/ops.h"

namespace atencion {

namespace {

void check_ids(const char* op, const Tensor& ids) {
  detail::check_defined(op, ids);
  if (ids.dtype() != DType::Int64) {
    throw std::invalid_argument(std::string(op) + ": ids must be an int64 tensor, got " +
                                dtype_name(ids.dtype()));
  }
}

// Every id in [0, size): "index_select: id 7 out of range for dim 0 of size 5".
std::vector<int64_t> checked_ids(const char* op, const Tensor& ids, int64_t dim, int64_t size) {
  check_ids(op, ids);
  std::vector<int64_t> values = ids.to_ids();
  for (int64_t id : values) {
    if (id < 0 || id >= size) {
      throw std::out_of_range(std::string(op) + ": id " + std::to_string(id) +
                              " out of range for dim " + std::to_string(dim) + " of size " +
                              std::to_string(size));
    }
  }
  return values;
}

// `shape` with dim `dim` replaced by `ids_shape`.
Shape replace_dim(const Shape& shape, int64_t dim, const Shape& ids_shape) {
  Shape result(shape.begin(), shape.begin() + dim);
  result.insert(result.end(), ids_shape.begin(), ids_shape.end());
  result.insert(result.end(), shape.begin() + dim + 1, shape.end());
  return result;
}

// The number of elements before and after `dim` in row-major order.
std::pair<int64_t, int64_t> outer_inner(const Shape& shape, int64_t dim) {
  int64_t outer = 1, inner = 1;
  for (int64_t d = 0; d < dim; ++d) outer *= shape[d];
  for (std::size_t d = dim + 1; d < shape.size(); ++d) inner *= shape[d];
  return {outer, inner};
}

// For gather/scatter_add: index has x's rank and fits inside x outside `dim`.
void check_index_shape(const char* op, const Shape& index, const Shape& x, int64_t dim,
                       const char* x_name) {
  bool fits = index.size() == x.size();
  for (std::size_t d = 0; d < x.size() && fits; ++d) {
    fits = static_cast<int64_t>(d) == dim || index[d] <= x[d];
  }
  if (!fits) {
    throw std::invalid_argument(std::string(op) + ": index of shape " + shape_to_string(index) +
                                " does not fit " + x_name + " of shape " + shape_to_string(x) +
                                " outside dim " + std::to_string(dim));
  }
}

}  // namespace

// out[o, j, i] = x[o, ids[j], i], viewing x as [outer, size, inner] and out as [outer, n, inner].
Tensor index_select(const Tensor& x, int64_t dim, const Tensor& ids) {
  detail::check_defined("index_select", x);
  const int64_t d = normalize_dim("index_select", dim, x.dim());
  if (x.dim() == 0) throw std::invalid_argument("index_select: x must have at least 1 dim");
  const std::vector<int64_t> id_values = checked_ids("index_select", ids, d, x.size(d));
  const Tensor source = x.contiguous();
  Tensor out = Tensor::empty(replace_dim(x.shape(), d, ids.shape()), x.dtype());
  const auto [outer, inner] = outer_inner(x.shape(), d);
  const int64_t count = static_cast<int64_t>(id_values.size());
  const std::size_t row_bytes = inner * dtype_size(x.dtype());
  const auto* from = static_cast<const char*>(source.storage()->data()) +
                     source.offset() * dtype_size(x.dtype());
  auto* to = static_cast<char*>(out.storage()->data());
  detail::parallel_for(outer * count, inner, [&](int64_t row) {
    const int64_t o = row / count, j = row % count;
    std::memcpy(to + row * row_bytes, from + (o * x.size(d) + id_values[j]) * row_bytes,
                row_bytes);
  });
  return out;
}

// out[..., j, ...] = x[..., index[..., j, ...], ...] along `dim`; out has index's shape.
Tensor gather(const Tensor& x, int64_t dim, const Tensor& index) {
  detail::check_defined("gather", x);
  const int64_t d = normalize_dim("gather", dim, x.dim());
  check_ids("gather", index);
  check_index_shape("gather", index.shape(), x.shape(), d, "x");
  checked_ids("gather", index, d, x.dim() == 0 ? 1 : x.size(d));
  Tensor out = Tensor::empty(index.shape(), x.dtype());
  if (out.numel() == 0) return out;
  Shape x_strides = x.strides();
  const int64_t id_stride = x.dim() == 0 ? 0 : x_strides[d];
  if (x.dim() > 0) x_strides[d] = 0;  // the id, not the position, chooses along dim
  const detail::LoopNest<3> nest(index.shape(), {out.strides(), index.strides(), x_strides});
  const int64_t* ids = index.data<int64_t>();
  detail::dispatch_any(x.dtype(), [&](auto tag) {
    using T = decltype(tag);
    const T* x_data = x.data<T>();
    T* out_data = out.data<T>();
    nest.parallel_for_each_run([&](const std::array<int64_t, 3>& offsets, int64_t run) {
      for (int64_t i = 0; i < run; ++i) {
        const int64_t id = ids[offsets[1] + i * nest.inner_stride(1)];
        out_data[offsets[0] + i * nest.inner_stride(0)] =
            x_data[offsets[2] + i * nest.inner_stride(2) + id * id_stride];
      }
    });
  });
  return out;
}

// out = zeros(shape); out[o, ids[j], i] += source[o, j, i]. Sequential over j, so rows that
// share an id are added in a fixed order.
Tensor index_add(const Shape& shape, int64_t dim, const Tensor& ids, const Tensor& source) {
  detail::check_defined("index_add", source);
  const int64_t d = normalize_dim("index_add", dim, static_cast<int64_t>(shape.size()));
  if (shape.empty()) throw std::invalid_argument("index_add: shape must have at least 1 dim");
  const std::vector<int64_t> id_values = checked_ids("index_add", ids, d, shape[d]);
  const Shape expected = replace_dim(shape, d, ids.shape());
  if (source.shape() != expected) {
    throw std::invalid_argument("index_add: source of shape " + shape_to_string(source.shape()) +
                                " does not match " + shape_to_string(expected) + " (shape " +
                                shape_to_string(shape) + " with dim " + std::to_string(d) +
                                " replaced by the ids' shape " + shape_to_string(ids.shape()) +
                                ")");
  }
  Tensor out = Tensor::zeros(shape, source.dtype());
  // Plain values rather than structured bindings: clang cannot capture those in OpenMP code.
  const std::pair<int64_t, int64_t> outer_and_inner = outer_inner(shape, d);
  const int64_t outer = outer_and_inner.first, inner = outer_and_inner.second;
  const int64_t count = static_cast<int64_t>(id_values.size());
  detail::dispatch_floating("index_add", source.dtype(), [&](auto tag) {
    using T = decltype(tag);
    const Tensor dense = source.contiguous();
    const T* from = dense.data<T>();
    T* to = out.data<T>();
    // Outer slices are disjoint, so they may run in parallel; ids within one run in order.
    detail::parallel_for(outer, count * inner, [&](int64_t o) {
      for (int64_t j = 0; j < count; ++j) {
        const T* row = from + (o * count + j) * inner;
        T* target = to + (o * shape[d] + id_values[j]) * inner;
        for (int64_t i = 0; i < inner; ++i) target[i] += row[i];
      }
    });
  });
  return out;
}

// out = zeros(shape); out[..., index[..., j, ...], ...] += source[..., j, ...] along `dim`.
Tensor scatter_add(const Shape& shape, int64_t dim, const Tensor& index, const Tensor& source) {
  detail::check_defined("scatter_add", source);
  const int64_t d = normalize_dim("scatter_add", dim, static_cast<int64_t>(shape.size()));
  check_ids("scatter_add", index);
  if (index.shape() != source.shape()) {
    throw std::invalid_argument("scatter_add: index of shape " + shape_to_string(index.shape()) +
                                " and source of shape " + shape_to_string(source.shape()) +
                                " differ");
  }
  check_index_shape("scatter_add", index.shape(), shape, d, "the output");
  checked_ids("scatter_add", index, d, shape.empty() ? 1 : shape[d]);
  Tensor out = Tensor::zeros(shape, source.dtype());
  if (index.numel() == 0) return out;
  Shape out_strides = out.strides();
  const int64_t id_stride = shape.empty() ? 0 : out_strides[d];
  if (!shape.empty()) out_strides[d] = 0;
  const detail::LoopNest<3> nest(index.shape(),
                                 {index.strides(), source.strides(), out_strides});
  const int64_t* ids = index.data<int64_t>();
  detail::dispatch_floating("scatter_add", source.dtype(), [&](auto tag) {
    using T = decltype(tag);
    const T* from = source.data<T>();
    T* to = out.data<T>();
    // Sequential: several positions may add into the same output element.
    nest.for_each_run(0, nest.numel(), [&](const std::array<int64_t, 3>& offsets, int64_t run) {
      for (int64_t i = 0; i < run; ++i) {
        const int64_t id = ids[offsets[0] + i * nest.inner_stride(0)];
        to[offsets[2] + i * nest.inner_stride(2) + id * id_stride] +=
            from[offsets[1] + i * nest.inner_stride(1)];
      }
    });
  });
  return out;
}

}  // namespace atencion
