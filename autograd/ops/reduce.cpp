// autograd/ops/reduce.cpp — sum, mean, var and max over dims.
// Lesson: docs/02-autograd.md#reductions
//
// A reduction maps many inputs to one output, so the backward goes the other way: the output's
// gradient is sent back to every input that fed it (repeated along the reduced dims).
#include <algorithm>

#include "autograd/ops.h"

namespace atencion {

namespace {

// x's shape with every reduced dim set to 1 (what keepdim=true gives); `dims` empty means all.
Shape kept_shape(const char* op, const Shape& shape, const std::vector<int64_t>& dims) {
  const auto rank = static_cast<int64_t>(shape.size());
  Shape kept = shape;
  if (dims.empty()) {
    std::fill(kept.begin(), kept.end(), 1);
  } else {
    for (int64_t d : dims) kept[normalize_dim(op, d, rank)] = 1;
  }
  return kept;
}

// g of a reduction, repeated back over the reduced dims: g of shape `kept` (or with those dims
// dropped) broadcast to `shape`. The result is a stride-0 view, no copy.
Tensor repeat_back(const Tensor& g, const Shape& kept, const Shape& shape) {
  return g.reshape(kept).expand(shape);
}

}  // namespace

// y = Σ x over dims        dx = g, repeated along the summed dims (each x fed y with weight 1)
Variable sum(const Variable& x, const std::vector<int64_t>& dims, bool keepdim) {
  const Shape x_shape = x.shape();
  const Shape kept = kept_shape("sum", x_shape, dims);
  return record("sum", sum(x.value(), dims, keepdim), {x},
                [=](const Tensor& g) -> Grads { return {repeat_back(g, kept, x_shape)}; });
}

// y = (1/N) Σ x over dims  dx = g / N, repeated (N = number of elements averaged)
Variable mean(const Variable& x, const std::vector<int64_t>& dims, bool keepdim) {
  const Shape x_shape = x.shape();
  const Shape kept = kept_shape("mean", x_shape, dims);
  const double count = static_cast<double>(shape_numel(x_shape) / shape_numel(kept));
  return record("mean", mean(x.value(), dims, keepdim), {x},
                [=](const Tensor& g) -> Grads {
                  return {repeat_back(div(g, count), kept, x_shape)};
                });
}

// y = Σ (x - x̄)² / (N - c)     dx = g * 2 (x - x̄) / (N - c)
// (the x̄ term vanishes: Σ (x - x̄) = 0, so moving x̄ changes y by nothing to first order)
Variable var(const Variable& x, const std::vector<int64_t>& dims, int64_t correction,
             bool keepdim) {
  const Tensor x_value = x.value();
  const Shape kept = kept_shape("var", x_value.shape(), dims);
  const double count = static_cast<double>(x_value.numel() / shape_numel(kept));
  return record("var", var(x_value, dims, correction, keepdim), {x},
                [=](const Tensor& g) -> Grads {
                  const Tensor centered = sub(x_value, mean(x_value, dims, /*keepdim=*/true));
                  const double scale = 2.0 / (count - static_cast<double>(correction));
                  return {mul(mul(centered, scale), repeat_back(g, kept, x_value.shape()))};
                });
}

// y = max of x along dim   dx = g at the position of the max (the first on ties), 0 elsewhere
Variable max(const Variable& x, int64_t dim, bool keepdim) {
  const Shape x_shape = x.shape();
  const int64_t d = normalize_dim("max", dim, x.dim());
  ValuesIndices best = max(x.value(), d, /*keepdim=*/true);
  const Tensor indices = best.indices;  // where each max came from, keepdim shape
  return record("max", keepdim ? best.values : best.values.squeeze(d), {x},
                [=](const Tensor& g) -> Grads {
                  const Tensor g_kept = keepdim ? g : g.unsqueeze(d);
                  return {scatter_add(x_shape, d, indices, g_kept)};
                });
}

// y = max of all elements  dx = g / k at each of the k elements equal to the max, 0 elsewhere
Variable max(const Variable& x) {
  const Tensor x_value = x.value();
  const Tensor y = max(x_value);
  const Tensor is_max = eq(x_value, y).to(x_value.dtype());  // 1 where x == max, else 0
  const Tensor share = div(is_max, sum(is_max));            // ties split the gradient evenly
  return record("max_all", y, {x},
                [=](const Tensor& g) -> Grads { return {mul(share, g)}; });
}

}  // namespace atencion
