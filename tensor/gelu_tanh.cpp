// tensor/gelu_tanh.cpp — GPT-2's gelu and its derivative, element by element.
// Lesson: docs/15-gpt.md#the-model
#include <algorithm>
#include <cmath>
#include <numbers>
#include <stdexcept>
#include <string>

#include "tensor/detail/fast_exp.h"
#include "tensor/detail/strided.h"
#include "tensor/ops.h"

namespace atencion {

// GPT-2's gelu: 0.5 x (1 + tanh u), u = sqrt(2/pi) (x + 0.044715 x^3). Computed as x σ(2u),
// the same number (½ (1 + tanh u) = σ(2u) = 1 / (1 + e^(−2u))), because one e^x is cheaper than
// a tanh and, in float32, detail::fast_exp vectorises: with std::tanh, GELU took a third of a
// small GPT's training step. The loops are compiled for AVX-512, AVX2 and the baseline (the
// running CPU picks; -ffp-contract=off, so every version rounds alike).
namespace {
constexpr double kSqrt2OverPi = std::numbers::sqrt2 * std::numbers::inv_sqrtpi;
constexpr double kCubic = 0.044715;
inline float exp_of(float x) { return detail::fast_exp(x); }
inline double exp_of(double x) { return std::exp(x); }
// σ(2u) for the x given
template <typename T>
[[gnu::always_inline]] inline T gelu_tanh_gate(T x) {
  const T two_u = static_cast<T>(2 * kSqrt2OverPi) * (x + static_cast<T>(kCubic) * x * x * x);
  return 1 / (1 + exp_of(-two_u));
}

#define ATENCION_GELU_CLONES \
  __attribute__((target_clones("arch=x86-64-v4", "arch=x86-64-v3", "default")))

// y = x s
template <typename T>
[[gnu::always_inline]] inline void gelu_tanh_body(const T* x, T* y, int64_t n) {
  for (int64_t i = 0; i < n; ++i) y[i] = x[i] * gelu_tanh_gate(x[i]);
}
ATENCION_GELU_CLONES void gelu_tanh_rows(const float* x, float* y, int64_t n) {
  gelu_tanh_body(x, y, n);
}
ATENCION_GELU_CLONES void gelu_tanh_rows(const double* x, double* y, int64_t n) {
  gelu_tanh_body(x, y, n);
}

// y = x s, s = σ(2u):  dy/dx = s + x s (1 − s) · 2 du/dx,  du/dx = √(2/π) (1 + 3 · 0.044715 x²)
template <typename T>
[[gnu::always_inline]] inline void gelu_tanh_backward_body(const T* x, const T* g, T* dx,
                                                           int64_t n) {
  for (int64_t i = 0; i < n; ++i) {
    const T v = x[i], s = gelu_tanh_gate(v);
    const T du_dx = static_cast<T>(kSqrt2OverPi) * (1 + static_cast<T>(3 * kCubic) * v * v);
    dx[i] = g[i] * (s + 2 * v * s * (1 - s) * du_dx);
  }
}
ATENCION_GELU_CLONES void gelu_tanh_backward_rows(const float* x, const float* g, float* dx,
                                                  int64_t n) {
  gelu_tanh_backward_body(x, g, dx, n);
}
ATENCION_GELU_CLONES void gelu_tanh_backward_rows(const double* x, const double* g, double* dx,
                                                  int64_t n) {
  gelu_tanh_backward_body(x, g, dx, n);
}
constexpr int64_t kGeluChunk = 4096;  // elements a thread takes at a time
}  // namespace

Tensor gelu_tanh(const Tensor& x) {
  const Tensor input = x.contiguous();
  Tensor y = Tensor::empty(x.shape(), x.dtype());
  detail::dispatch_floating("gelu_tanh", x.dtype(), [&](auto tag) {
    using T = decltype(tag);
    const T* in = input.data<T>();
    T* out = y.data<T>();
    const int64_t n = input.numel();
    detail::parallel_for((n + kGeluChunk - 1) / kGeluChunk, 16 * kGeluChunk, [&](int64_t chunk) {
      const int64_t first = chunk * kGeluChunk;
      gelu_tanh_rows(in + first, out + first, std::min(kGeluChunk, n - first));
    });
  });
  return y;
}

Tensor gelu_tanh_backward(const Tensor& x, const Tensor& grad) {
  detail::check_same_dtype("gelu_tanh_backward", x, grad);
  if (x.shape() != grad.shape())
    throw std::invalid_argument("gelu_tanh_backward: x " + shape_to_string(x.shape()) +
                                " and grad " + shape_to_string(grad.shape()) + " differ");
  const Tensor input = x.contiguous(), g = grad.contiguous();
  Tensor dx = Tensor::empty(x.shape(), x.dtype());
  detail::dispatch_floating("gelu_tanh_backward", x.dtype(), [&](auto tag) {
    using T = decltype(tag);
    const T* in = input.data<T>();
    const T* gi = g.data<T>();
    T* out = dx.data<T>();
    const int64_t n = input.numel();
    detail::parallel_for((n + kGeluChunk - 1) / kGeluChunk, 20 * kGeluChunk, [&](int64_t chunk) {
      const int64_t first = chunk * kGeluChunk;
      gelu_tanh_backward_rows(in + first, gi + first, out + first, std::min(kGeluChunk, n - first));
    });
  });
  return dx;
}

}  // namespace atencion
