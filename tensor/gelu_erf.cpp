// tensor/gelu_erf.cpp — the exact gelu, x Φ(x), and its derivative, element by element.
// Lesson: docs/16-bert.md (BERT's activation); docs/10-transformer.md#feed-forward
#include <algorithm>
#include <cmath>
#include <numbers>
#include <stdexcept>
#include <string>

#include "tensor/detail/fast_exp.h"
#include "tensor/detail/strided.h"
#include "tensor/ops.h"

namespace atencion {

// gelu(x) = x Φ(x), Φ(x) = ½ (1 + erf(x / √2)) the normal CDF;  gelu'(x) = Φ(x) + x φ(x),
// φ(x) = e^(−x²/2) / √(2π) its density. std::erf is a library call that does not vectorise, and
// in a BERT's training step it (with the derivative in double) took about a tenth of the time.
//
// In float32, Φ is written through erfc, which keeps its relative accuracy in the far tail:
//   Φ(x) = ½ erfc(−x / √2),  and for z ≥ 0
//   erfc(z) ≈ t e^(−z² + P(t)),  t = 1 / (1 + z/2),  P a degree-9 polynomial
// (the Chebyshev fit of Numerical Recipes, §6.2, "erfcc": relative error below 1.2e-7 for every
// z ≥ 0, about one float32 ulp), with e^x from detail::fast_exp, so the loops vectorise. For
// z < 0, erfc(z) = 2 − erfc(−z). float64 keeps std::erfc (exact to double rounding: gradcheck).
// The loops are compiled for AVX-512, AVX2 and the baseline (the running CPU picks).
namespace {
constexpr double kInvSqrt2 = 1 / std::numbers::sqrt2;
constexpr double kInvSqrt2Pi = std::numbers::inv_sqrtpi * kInvSqrt2;  // 1 / √(2π)

// ½ erfc(z) for z ≥ 0 in float32
[[gnu::always_inline]] inline float half_erfc_of_positive(float z) {
  const float t = 1.0f / (1.0f + 0.5f * z);
  float p = 0.17087277f;
  p = p * t - 0.82215223f;
  p = p * t + 1.48851587f;
  p = p * t - 1.13520398f;
  p = p * t + 0.27886807f;
  p = p * t - 0.18628806f;
  p = p * t + 0.09678418f;
  p = p * t + 0.37409196f;
  p = p * t + 1.00002368f;
  p = p * t - 1.26551223f;
  return 0.5f * t * detail::fast_exp(p - z * z);
}
[[gnu::always_inline]] inline float normal_cdf(float x) {
  const float tail = half_erfc_of_positive(std::abs(x) * static_cast<float>(kInvSqrt2));
  return x < 0 ? tail : 1.0f - tail;  // Φ(−|x|) is the tail; Φ(x) = 1 − Φ(−x)
}
[[gnu::always_inline]] inline float normal_density(float x) {
  return static_cast<float>(kInvSqrt2Pi) * detail::fast_exp(-0.5f * x * x);
}
inline double normal_cdf(double x) { return 0.5 * std::erfc(-x * kInvSqrt2); }
inline double normal_density(double x) { return kInvSqrt2Pi * std::exp(-0.5 * x * x); }

#define ATENCION_GELU_ERF_CLONES \
  __attribute__((target_clones("arch=x86-64-v4", "arch=x86-64-v3", "default")))

template <typename T>
[[gnu::always_inline]] inline void gelu_body(const T* x, T* y, int64_t n) {
  for (int64_t i = 0; i < n; ++i) y[i] = x[i] * normal_cdf(x[i]);
}
ATENCION_GELU_ERF_CLONES void gelu_rows(const float* x, float* y, int64_t n) { gelu_body(x, y, n); }
void gelu_rows(const double* x, double* y, int64_t n) { gelu_body(x, y, n); }

template <typename T>
[[gnu::always_inline]] inline void gelu_backward_body(const T* x, const T* g, T* dx, int64_t n) {
  for (int64_t i = 0; i < n; ++i) dx[i] = g[i] * (normal_cdf(x[i]) + x[i] * normal_density(x[i]));
}
ATENCION_GELU_ERF_CLONES void gelu_backward_rows(const float* x, const float* g, float* dx,
                                                 int64_t n) {
  gelu_backward_body(x, g, dx, n);
}
void gelu_backward_rows(const double* x, const double* g, double* dx, int64_t n) {
  gelu_backward_body(x, g, dx, n);
}
constexpr int64_t kChunk = 4096;  // elements a thread takes at a time
}  // namespace

Tensor gelu(const Tensor& x) {
  detail::check_defined("gelu", x);
  const Tensor input = x.contiguous();
  Tensor y = Tensor::uninitialized(x.shape(), x.dtype());
  detail::dispatch_floating("gelu", x.dtype(), [&](auto tag) {
    using T = decltype(tag);
    const T* in = input.data<T>();
    T* out = y.data<T>();
    const int64_t n = input.numel();
    detail::parallel_for((n + kChunk - 1) / kChunk, 16 * kChunk, [&](int64_t chunk) {
      const int64_t first = chunk * kChunk;
      gelu_rows(in + first, out + first, std::min(kChunk, n - first));
    });
  });
  return y;
}

Tensor gelu_backward(const Tensor& x, const Tensor& grad) {
  detail::check_defined("gelu_backward", x);
  detail::check_defined("gelu_backward", grad);
  detail::check_same_dtype("gelu_backward", x, grad);
  if (x.shape() != grad.shape())
    throw std::invalid_argument("gelu_backward: x " + shape_to_string(x.shape()) + " and grad " +
                                shape_to_string(grad.shape()) + " differ");
  const Tensor input = x.contiguous(), g = grad.contiguous();
  Tensor dx = Tensor::uninitialized(x.shape(), x.dtype());
  detail::dispatch_floating("gelu_backward", x.dtype(), [&](auto tag) {
    using T = decltype(tag);
    const T* in = input.data<T>();
    const T* gi = g.data<T>();
    T* out = dx.data<T>();
    const int64_t n = input.numel();
    detail::parallel_for((n + kChunk - 1) / kChunk, 20 * kChunk, [&](int64_t chunk) {
      const int64_t first = chunk * kChunk;
      gelu_backward_rows(in + first, gi + first, out + first, std::min(kChunk, n - first));
    });
  });
  return dx;
}

}  // namespace atencion
