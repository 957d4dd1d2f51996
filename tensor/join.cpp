// tensor/join.cpp — cat joins tensors along a dim; split cuts one into views.
// Lesson: docs/01-tensor.md#views (split returns narrow() views; cat copies)
//
// Multi-head attention uses both: split the embedding into heads, concatenate them back.
#include <stdexcept>
#include <string>

#include "tensor/detail/strided.h"
#include "tensor/ops.h"

namespace atencion {

Tensor cat(const std::vector<Tensor>& tensors, int64_t dim) {
  if (tensors.empty()) throw std::invalid_argument("cat: expected at least one tensor");
  const Tensor& first = tensors.front();
  detail::check_defined("cat", first);
  if (first.dim() == 0) throw std::invalid_argument("cat: cannot concatenate rank-0 tensors");
  const int64_t d = normalize_dim("cat", dim, first.dim());
  Shape shape = first.shape();
  shape[d] = 0;
  for (std::size_t i = 0; i < tensors.size(); ++i) {
    const Tensor& t = tensors[i];
    detail::check_defined("cat", t);
    detail::check_same_dtype("cat", first, t);
    bool fits = t.dim() == first.dim();
    for (int64_t other = 0; other < first.dim() && fits; ++other) {
      fits = other == d || t.shape()[other] == first.shape()[other];
    }
    if (!fits) {
      throw std::invalid_argument("cat: tensor " + std::to_string(i) + " of shape " +
                                  shape_to_string(t.shape()) + " does not match " +
                                  shape_to_string(first.shape()) + " outside dim " +
                                  std::to_string(d));
    }
    shape[d] += t.shape()[d];
  }
  Tensor out = Tensor::uninitialized(shape, first.dtype());
  int64_t start = 0;
  for (const Tensor& t : tensors) {
    out.narrow(d, start, t.shape()[d]).copy_(t);
    start += t.shape()[d];
  }
  return out;
}

std::vector<Tensor> split(const Tensor& x, int64_t split_size, int64_t dim) {
  detail::check_defined("split", x);
  const int64_t d = normalize_dim("split", dim, x.dim());
  if (split_size <= 0) {
    throw std::invalid_argument("split: split_size must be positive, got " +
                                std::to_string(split_size));
  }
  std::vector<int64_t> sizes;
  for (int64_t start = 0; start < x.size(d); start += split_size) {
    sizes.push_back(std::min(split_size, x.size(d) - start));  // the last piece may be smaller
  }
  if (sizes.empty()) sizes.push_back(0);
  return split(x, sizes, d);
}

std::vector<Tensor> split(const Tensor& x, const std::vector<int64_t>& sizes, int64_t dim) {
  detail::check_defined("split", x);
  const int64_t d = normalize_dim("split", dim, x.dim());
  int64_t total = 0;
  for (int64_t size : sizes) {
    if (size < 0) {
      throw std::invalid_argument("split: negative size in " + shape_to_string(sizes));
    }
    total += size;
  }
  if (total != x.size(d)) {
    throw std::invalid_argument("split: sizes " + shape_to_string(sizes) + " sum to " +
                                std::to_string(total) + ", but dim " + std::to_string(d) +
                                " of " + shape_to_string(x.shape()) + " has size " +
                                std::to_string(x.size(d)));
  }
  std::vector<Tensor> pieces;
  int64_t start = 0;
  for (int64_t size : sizes) {
    pieces.push_back(x.narrow(d, start, size));
    start += size;
  }
  return pieces;
}

}  // namespace atencion
