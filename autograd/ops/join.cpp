// autograd/ops/join.cpp — cat and split: one is the other's backward.
// Lesson: docs/02-autograd.md#joining
#include "autograd/ops.h"

namespace atencion {

// y = [x_0 | x_1 | ...] along dim      dx_k = g[..., offset_k : offset_k + size_k, ...]
Variable cat(const std::vector<Variable>& xs, int64_t dim) {
  std::vector<Tensor> values;
  values.reserve(xs.size());
  for (const Variable& x : xs) values.push_back(x.value());
  Tensor y = cat(values, dim);  // checks shapes, dtypes and dim
  const int64_t d = normalize_dim("cat", dim, y.dim());
  std::vector<int64_t> sizes;
  for (const Tensor& value : values) sizes.push_back(value.size(d));
  return record("cat", std::move(y), xs,
                [=](const Tensor& g) -> Grads {
                  // forward: x_k was copied into the block [offset_k, offset_k + size_k)
                  Grads grads;
                  int64_t offset = 0;
                  for (int64_t size : sizes) {
                    grads.push_back(g.narrow(d, offset, size));
                    offset += size;
                  }
                  return grads;
                });
}

// y_k = x[..., offset_k : offset_k + size_k, ...]: each block is a narrow of x, so each gets
// narrow's backward, and x receives the sum of the blocks' gradients (each in its own window).
std::vector<Variable> split(const Variable& x, const std::vector<int64_t>& sizes, int64_t dim) {
  const std::vector<Tensor> blocks = split(x.value(), sizes, dim);  // checks the sizes add up
  const int64_t d = normalize_dim("split", dim, x.dim());
  std::vector<Variable> pieces;
  int64_t offset = 0;
  for (const Tensor& block : blocks) {
    pieces.push_back(narrow(x, d, offset, block.size(d)));
    offset += block.size(d);
  }
  return pieces;
}

// Blocks of split_size along dim (the last one may be smaller), as torch.split.
std::vector<Variable> split(const Variable& x, int64_t split_size, int64_t dim) {
  std::vector<int64_t> sizes;
  for (const Tensor& block : split(x.value(), split_size, dim)) {
    sizes.push_back(block.size(normalize_dim("split", dim, x.dim())));
  }
  return split(x, sizes, dim);
}

}  // namespace atencion
