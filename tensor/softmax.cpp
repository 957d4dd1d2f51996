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
//
// Two versions: softmax_rows below is the formula written out, one value at a time, for any
// dtype and any strides. Float32 rows that are contiguous (the attention weights, the decoder's
// log-probabilities over the vocabulary) take fast_row instead: the same three passes, written
// so that the compiler vectorises them (e^x by tensor/detail/fast_exp.h instead of a library
// call, the max and the sum in kLanes independent lanes). tests/tensor/test_softmax.cpp pins it
// to softmax_rows.
#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>
#include <string>
#include <type_traits>

#include "tensor/detail/fast_exp.h"
#include "tensor/detail/row_lanes.h"
#include "tensor/detail/strided.h"
#include "tensor/ops.h"

namespace atencion {

namespace {

// ---- the fast version: one contiguous float32 row ---------------------------------------------

constexpr int64_t kLanes = 16;  // the max and the sum (tensor/detail/row_lanes.h)

// out = softmax(in) or log_softmax(in) of one contiguous row. The exponentials e^(x_i − max)
// are written into `out` first (log_softmax then overwrites them). Compiled for AVX-512, AVX2
// and SSE2, the best picked at start-up; the file is compiled with -ffp-contract=off
// (CMakeLists.txt), so every version rounds alike and the bits do not depend on the CPU.
__attribute__((target_clones("arch=x86-64-v4", "arch=x86-64-v3", "default")))
void fast_row(const float* in, float* out, int64_t length, bool log) {
  const float max = detail::row_max<kLanes>(in, length);
  if (max == -std::numeric_limits<float>::infinity()) {  // every entry is -inf: fully masked
    for (int64_t i = 0; i < length; ++i)
      out[i] = log ? -std::numeric_limits<float>::infinity() : 0.0f;
    return;
  }
  for (int64_t i = 0; i < length; ++i) out[i] = detail::fast_exp(in[i] - max);
  const double total = detail::row_sum<kLanes>(out, length);
  if (log) {
    const float log_total = static_cast<float>(std::log(total));
    for (int64_t i = 0; i < length; ++i) out[i] = in[i] - max - log_total;
  } else {
    const float inverse_total = static_cast<float>(1.0 / total);
    for (int64_t i = 0; i < length; ++i) out[i] *= inverse_total;
  }
}

// dx = y ∘ (g − Σ_i g_i y_i) of one contiguous float32 row (softmax's backward, below). The dot
// product runs in kLanes double lanes; rounded to float32 as sum() would give it.
__attribute__((target_clones("arch=x86-64-v4", "arch=x86-64-v3", "default")))
void fast_backward_row(const float* y, const float* g, float* dx, int64_t length) {
  const float g_dot_y = static_cast<float>(detail::row_dot<kLanes>(g, y, length));
  for (int64_t i = 0; i < length; ++i) dx[i] = y[i] * (g[i] - g_dot_y);
}

// ---- the readable version: any dtype, any strides -----------------------------------------------

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
    if constexpr (std::is_same_v<T, float>) {
      if (x_step == 1 && out_step == 1) return fast_row(in, result, length, kLog);
    }

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
  if (x.dtype() == DType::Float32 && input.is_contiguous() && d == input.dim() - 1) {
    // Rows one after another in memory: row r starts at r · length, no index arithmetic.
    const int64_t length = input.shape()[d], rows = length == 0 ? 0 : input.numel() / length;
    const float* in = input.data<float>();
    float* result = out.data<float>();
    detail::parallel_for(rows, length, [&](int64_t row) {
      fast_row(in + row * length, result + row * length, length, kLog);
    });
  } else {
    detail::dispatch_floating(op, x.dtype(), [&](auto tag) {
      softmax_rows<decltype(tag), kLog>(input, out, d);
    });
  }
  return x.dim() == 0 ? out.reshape({}) : out;
}

}  // namespace

Tensor softmax(const Tensor& x, int64_t dim) { return softmax_along<false>("softmax", x, dim); }

Tensor log_softmax(const Tensor& x, int64_t dim) {
  return softmax_along<true>("log_softmax", x, dim);
}

// dx_k = y_k (g_k − Σ_i g_i y_i): the readable version is the formula in three tensor ops; float32
// rows that are contiguous in both y and g take fast_backward_row, one pass and no temporaries
// (tests/tensor/test_softmax.cpp pins the two together).
Tensor softmax_backward(const Tensor& y, const Tensor& g, int64_t dim) {
  detail::check_defined("softmax_backward", y);
  detail::check_defined("softmax_backward", g);
  if (y.shape() != g.shape()) {
    throw std::invalid_argument("softmax_backward: gradient of shape " + shape_to_string(g.shape()) +
                                " for softmax output of shape " + shape_to_string(y.shape()));
  }
  const int64_t d = normalize_dim("softmax_backward", dim, std::max<int64_t>(y.dim(), 1));
  const bool contiguous_rows = y.dtype() == DType::Float32 && g.dtype() == DType::Float32 &&
                             y.dim() > 0 && d == y.dim() - 1 && y.is_contiguous() &&
                             g.is_contiguous();
  if (!contiguous_rows) return mul(y, sub(g, sum(mul(g, y), {dim}, /*keepdim=*/true)));
  Tensor dx = Tensor::uninitialized(y.shape(), y.dtype());
  const int64_t length = y.shape()[d], rows = length == 0 ? 0 : y.numel() / length;
  const float* y_data = y.data<float>();
  const float* g_data = g.data<float>();
  float* dx_data = dx.data<float>();
  detail::parallel_for(rows, length, [&](int64_t row) {
    fast_backward_row(y_data + row * length, g_data + row * length, dx_data + row * length, length);
  });
  return dx;
}

}  // namespace atencion
