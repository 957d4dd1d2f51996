// tensor/softmax.cpp — softmax and log_softmax along one dim, computed stably.
// Lesson: docs/01-tensor.md#softmax
// Why: notebook 004, "Self-Attention doesn't work (by itself)", on softmax overflowing
// (docs/notebooks.md#notebook-004).
//
//   softmax(x)_i     = exp(x_i - max) / sum_j exp(x_j - max)
//   log_softmax(x)_i = x_i - max - log(sum_j exp(x_j - max))
//
// Subtracting the row max changes nothing mathematically (it cancels between numerator and
// denominator) but keeps every exp() argument <= 0, so exp never overflows to inf.
// A row that is all -inf (every position masked) gives zeros from softmax and -inf from
// log_softmax instead of the NaN that -inf - (-inf) would produce.
#include <cmath>
#include <limits>

#include "tensor/detail/strided.h"
#include "tensor/ops.h"

namespace atencion {

namespace {

template <typename T, bool kLog>
void softmax_rows(const Tensor& x, Tensor& out, int64_t dim) {
  // Every position of the other dims is one row; the row runs along `dim`.
  Shape row_shape, x_row_strides, out_row_strides;
  for (int64_t d = 0; d < x.dim(); ++d) {
    if (d == dim) continue;
    row_shape.push_back(x.shape()[d]);
    x_row_strides.push_back(x.strides()[d]);
    out_row_strides.push_back(out.strides()[d]);
  }
  const int64_t length = x.shape()[dim];
  const int64_t x_step = x.strides()[dim];
  const int64_t out_step = out.strides()[dim];
  const detail::LoopNest<2> rows(row_shape, {x_row_strides, out_row_strides});
  const T* x_data = x.data<T>();
  T* out_data = out.data<T>();
  constexpr T kMinusInf = -std::numeric_limits<T>::infinity();

  detail::parallel_for(rows.numel(), length, [&](int64_t row) {
    const std::array<int64_t, 2> start = rows.offsets_at(row);
    const T* in = x_data + start[0];
    T* result = out_data + start[1];

    T row_max = kMinusInf;
    for (int64_t i = 0; i < length; ++i) {
      const T v = in[i * x_step];
      if (v > row_max || v != v) row_max = v;  // NaN propagates, as in torch
    }
    if (row_max == kMinusInf) {  // every entry is -inf: a fully masked row
      for (int64_t i = 0; i < length; ++i) result[i * out_step] = kLog ? kMinusInf : T{0};
      return;
    }
    double total = 0;
    for (int64_t i = 0; i < length; ++i) {
      const T shifted_exp = std::exp(in[i * x_step] - row_max);
      if constexpr (!kLog) result[i * out_step] = shifted_exp;
      total += shifted_exp;
    }
    if constexpr (kLog) {
      const T log_total = static_cast<T>(std::log(total));
      for (int64_t i = 0; i < length; ++i) {
        result[i * out_step] = in[i * x_step] - row_max - log_total;
      }
    } else {
      const T inverse_total = static_cast<T>(1.0 / total);
      for (int64_t i = 0; i < length; ++i) result[i * out_step] *= inverse_total;
    }
  });
}

template <bool kLog>
Tensor softmax_along(const char* op, const Tensor& x, int64_t dim) {
  detail::check_defined(op, x);
  const int64_t d = normalize_dim(op, dim, x.dim());
  const Tensor input = x.dim() == 0 ? x.reshape({1}) : x;
  Tensor out = Tensor::uninitialized(input.shape(), x.dtype());
  detail::dispatch_floating(op, x.dtype(), [&](auto tag) {
    softmax_rows<decltype(tag), kLog>(input, out, d);
  });
  return x.dim() == 0 ? out.reshape({}) : out;
}

}  // namespace

Tensor softmax(const Tensor& x, int64_t dim) { return softmax_along<false>("softmax", x, dim); }

Tensor log_softmax(const Tensor& x, int64_t dim) {
  return softmax_along<true>("log_softmax", x, dim);
}

}  // namespace atencion
