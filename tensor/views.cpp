// tensor/views.cpp — views: new shape/strides/offset over the same storage, nothing copied.
// Lesson: docs/01-tensor.md#views
//
//   transpose swaps two strides; permute reorders them; narrow/slice/select move the offset;
//   unsqueeze/expand add dims with stride 0 where the data repeats; view/reshape regroup dims.
#include <stdexcept>
#include <string>

#include "tensor/tensor.h"

namespace atencion {

namespace {

// Resolves one -1 and checks that the new shape holds exactly the old number of elements.
Shape infer_shape(const char* op, const Shape& requested, const Shape& current) {
  Shape shape = requested;
  int64_t inferred_dim = -1;
  int64_t known = 1;
  for (std::size_t d = 0; d < shape.size(); ++d) {
    if (shape[d] == -1) {
      if (inferred_dim >= 0) {
        throw std::invalid_argument(std::string(op) + ": only one dimension can be -1, got " +
                                    shape_to_string(requested));
      }
      inferred_dim = static_cast<int64_t>(d);
    } else if (shape[d] < 0) {
      throw std::invalid_argument(std::string(op) + ": invalid size " + std::to_string(shape[d]) +
                                  " in shape " + shape_to_string(requested));
    } else if (__builtin_mul_overflow(known, shape[d], &known)) {
      throw std::invalid_argument(std::string(op) + ": shape " + shape_to_string(requested) +
                                  " has more elements than int64 can count");
    }
  }
  const int64_t numel = shape_numel(current);
  if (inferred_dim >= 0) {
    if (known == 0 || numel % known != 0) {
      throw std::invalid_argument(std::string(op) + ": shape " + shape_to_string(requested) +
                                  " is invalid for a tensor of shape " +
                                  shape_to_string(current) + " (" + std::to_string(numel) +
                                  " elements)");
    }
    shape[inferred_dim] = numel / known;
  } else if (known != numel) {
    throw std::invalid_argument(std::string(op) + ": shape " + shape_to_string(requested) +
                                " has " + std::to_string(known) + " elements but the tensor " +
                                shape_to_string(current) + " has " + std::to_string(numel));
  }
  return shape;
}

// Strides that let `new_shape` read the same elements in the same row-major order, or an empty
// result when the layout does not allow it. Old dims are taken in groups that are contiguous
// among themselves (stride[d] == stride[d+1] * size[d+1]); each group is one block of memory
// with a uniform step, so it can be re-split into any new dims whose sizes multiply to the
// group's size. A new dim that straddles two groups is impossible without a copy.
bool view_strides(const Shape& old_shape, const Shape& old_strides, const Shape& new_shape,
                  Shape& new_strides) {
  new_strides.assign(new_shape.size(), 0);
  if (shape_numel(old_shape) == 0 || old_shape.empty()) {
    new_strides = contiguous_strides(new_shape);
    return true;
  }
  int64_t new_d = static_cast<int64_t>(new_shape.size()) - 1;
  int64_t group_numel = 1;  // elements in the current group of old dims
  int64_t view_numel = 1;   // elements covered by the new dims assigned to it so far
  int64_t group_step = old_strides.back();  // the stride of the group's innermost dim
  for (int64_t d = static_cast<int64_t>(old_shape.size()) - 1; d >= 0; --d) {
    group_numel *= old_shape[d];
    const bool group_ends =
        d == 0 || (old_shape[d - 1] != 1 && old_strides[d - 1] != group_numel * group_step);
    if (!group_ends) continue;
    while (new_d >= 0 && (view_numel < group_numel || new_shape[new_d] == 1)) {
      new_strides[new_d] = view_numel * group_step;
      view_numel *= new_shape[new_d];
      --new_d;
    }
    if (view_numel != group_numel) return false;
    if (d > 0) {
      group_step = old_strides[d - 1];
      group_numel = 1;
      view_numel = 1;
    }
  }
  return new_d == -1;
}

// Ops that pick along a dim need one: a rank-0 tensor has none.
void check_has_dims(const char* op, const Tensor& t) {
  if (t.dim() == 0) {
    throw std::invalid_argument(std::string(op) + ": cannot be applied to a rank-0 tensor");
  }
}

}  // namespace

Tensor Tensor::view(const Shape& requested) const {
  const Shape shape = infer_shape("view", requested, shape_);
  Shape strides;
  if (!view_strides(shape_, strides_, shape, strides)) {
    throw std::invalid_argument("view: shape " + shape_to_string(shape) +
                                " is not compatible with the strides of " +
                                shape_to_string(shape_) + " (strides " +
                                shape_to_string(strides_) +
                                ", e.g. after a transpose); use reshape(), which copies");
  }
  return Tensor(storage_, shape, strides, offset_, dtype_);
}

Tensor Tensor::reshape(const Shape& requested) const {
  const Shape shape = infer_shape("reshape", requested, shape_);
  Shape strides;
  if (view_strides(shape_, strides_, shape, strides)) {
    return Tensor(storage_, shape, strides, offset_, dtype_);
  }
  return clone().view(shape);
}

Tensor Tensor::transpose(int64_t dim0, int64_t dim1) const {
  const int64_t d0 = normalize_dim("transpose", dim0, dim());
  const int64_t d1 = normalize_dim("transpose", dim1, dim());
  if (dim() == 0) return *this;
  Shape shape = shape_;
  Shape strides = strides_;
  std::swap(shape[d0], shape[d1]);
  std::swap(strides[d0], strides[d1]);
  return Tensor(storage_, shape, strides, offset_, dtype_);
}

Tensor Tensor::t() const {
  if (dim() < 2) {
    throw std::invalid_argument("t: expected a tensor with at least 2 dims, got shape " +
                                shape_to_string(shape_));
  }
  return transpose(-2, -1);
}

Tensor Tensor::permute(const std::vector<int64_t>& dims) const {
  if (static_cast<int64_t>(dims.size()) != dim()) {
    throw std::invalid_argument("permute: " + std::to_string(dims.size()) +
                                " dims given for a tensor of shape " + shape_to_string(shape_));
  }
  Shape shape(dims.size());
  Shape strides(dims.size());
  std::vector<bool> seen(dims.size(), false);
  for (std::size_t i = 0; i < dims.size(); ++i) {
    const int64_t d = normalize_dim("permute", dims[i], dim());
    if (seen[d]) {
      throw std::invalid_argument("permute: dim " + std::to_string(d) + " appears twice in " +
                                  shape_to_string(dims));
    }
    seen[d] = true;
    shape[i] = shape_[d];
    strides[i] = strides_[d];
  }
  return Tensor(storage_, shape, strides, offset_, dtype_);
}

Tensor Tensor::narrow(int64_t dim_, int64_t start, int64_t length) const {
  check_has_dims("narrow", *this);
  const int64_t d = normalize_dim("narrow", dim_, dim());
  const int64_t size = shape_[d];
  if (start < 0) start += size;
  if (start < 0 || length < 0 || start + length > size) {
    throw std::out_of_range("narrow: start " + std::to_string(start) + " and length " +
                            std::to_string(length) + " do not fit dim " + std::to_string(d) +
                            " of size " + std::to_string(size) + " (shape " +
                            shape_to_string(shape_) + ")");
  }
  Shape shape = shape_;
  shape[d] = length;
  return Tensor(storage_, shape, strides_, offset_ + start * strides_[d], dtype_);
}

// Python-style bounds: negative start/end count from the end, and both are clamped to the dim.
Tensor Tensor::slice(int64_t dim_, int64_t start, int64_t end, int64_t step) const {
  check_has_dims("slice", *this);
  const int64_t d = normalize_dim("slice", dim_, dim());
  if (step <= 0) {
    throw std::invalid_argument("slice: step must be positive, got " + std::to_string(step));
  }
  const int64_t size = shape_[d];
  auto clamp = [size](int64_t i) {
    if (i < 0) i += size;
    return std::min(std::max<int64_t>(i, 0), size);
  };
  start = clamp(start);
  end = std::max(clamp(end), start);
  Shape shape = shape_;
  Shape strides = strides_;
  shape[d] = (end - start + step - 1) / step;
  strides[d] = strides_[d] * step;
  return Tensor(storage_, shape, strides, offset_ + start * strides_[d], dtype_);
}

Tensor Tensor::select(int64_t dim_, int64_t index) const {
  check_has_dims("select", *this);
  const int64_t d = normalize_dim("select", dim_, dim());
  const int64_t size = shape_[d];
  if (index < -size || index >= size) {
    throw std::out_of_range("select: index " + std::to_string(index) + " out of range for dim " +
                            std::to_string(d) + " of size " + std::to_string(size));
  }
  if (index < 0) index += size;
  Shape shape = shape_;
  Shape strides = strides_;
  shape.erase(shape.begin() + d);
  strides.erase(strides.begin() + d);
  return Tensor(storage_, shape, strides, offset_ + index * strides_[d], dtype_);
}

// Like torch: squeezing a dim whose size is not 1 returns the tensor unchanged.
Tensor Tensor::squeeze(int64_t dim_) const {
  const int64_t d = normalize_dim("squeeze", dim_, dim());
  if (dim() == 0 || shape_[d] != 1) return *this;
  Shape shape = shape_;
  Shape strides = strides_;
  shape.erase(shape.begin() + d);
  strides.erase(strides.begin() + d);
  return Tensor(storage_, shape, strides, offset_, dtype_);
}

Tensor Tensor::unsqueeze(int64_t dim_) const {
  const int64_t d = normalize_dim("unsqueeze", dim_, dim() + 1);
  Shape shape = shape_;
  Shape strides = strides_;
  // Any stride works for a size-1 dim; this one keeps a contiguous tensor contiguous.
  const int64_t stride = d < dim() ? shape_[d] * strides_[d] : 1;
  shape.insert(shape.begin() + d, 1);
  strides.insert(strides.begin() + d, stride);
  return Tensor(storage_, shape, strides, offset_, dtype_);
}

// New leading dims and stretched size-1 dims read the same element again: stride 0.
Tensor Tensor::expand(const Shape& requested) const {
  const int64_t new_rank = static_cast<int64_t>(requested.size());
  auto fail = [&](const std::string& why) {
    return std::invalid_argument("expand: cannot expand " + shape_to_string(shape_) + " to " +
                                 shape_to_string(requested) + ": " + why);
  };
  if (new_rank < dim()) throw fail("the target has fewer dims");
  const int64_t lead = new_rank - dim();
  Shape shape(new_rank);
  Shape strides(new_rank, 0);
  for (int64_t d = 0; d < new_rank; ++d) {
    if (d < lead) {
      if (requested[d] < 0) throw fail("-1 is not allowed for a new leading dim");
      shape[d] = requested[d];
      continue;
    }
    const int64_t size = shape_[d - lead];
    const int64_t want = requested[d] == -1 ? size : requested[d];
    if (want == size) {
      shape[d] = size;
      strides[d] = strides_[d - lead];
    } else if (size == 1 && want >= 0) {
      shape[d] = want;
    } else {
      throw fail("dim " + std::to_string(d - lead) + " has size " + std::to_string(size) +
                 ", which is not 1");
    }
  }
  return Tensor(storage_, shape, strides, offset_, dtype_);
}

Tensor Tensor::flatten(int64_t start_dim, int64_t end_dim) const {
  if (dim() == 0) return reshape({1});
  const int64_t start = normalize_dim("flatten", start_dim, dim());
  const int64_t end = normalize_dim("flatten", end_dim, dim());
  if (start > end) {
    throw std::invalid_argument("flatten: start_dim " + std::to_string(start_dim) +
                                " comes after end_dim " + std::to_string(end_dim));
  }
  Shape shape(shape_.begin(), shape_.begin() + start);
  int64_t merged = 1;
  for (int64_t d = start; d <= end; ++d) merged *= shape_[d];
  shape.push_back(merged);
  shape.insert(shape.end(), shape_.begin() + end + 1, shape_.end());
  return reshape(shape);
}

}  // namespace atencion
