// autograd/ops/unary.cpp — element-wise functions: each output depends on one input element, so
// the chain rule is a product: dx = g * f'(x).
// Lesson: docs/02-autograd.md#element-wise-functions
#include <cmath>
#include <numbers>
#include <stdexcept>

#include "autograd/ops.h"

namespace atencion {

namespace {

Tensor zero_like_dtype(const Tensor& t) { return Tensor::scalar(0, t.dtype()); }

// f applied to every element of a Float32/Float64 tensor: for gelu's derivative, which has no
// kernel of its own in tensor/ops.h.
template <typename Function>
Tensor map_elements(const char* op, const Tensor& x, Function f) {
  const Tensor input = x.contiguous();
  Tensor output = Tensor::empty(x.shape(), x.dtype());
  const int64_t n = input.numel();
  if (x.dtype() == DType::Float64) {
    const double* in = input.data<double>();
    double* out = output.data<double>();
    for (int64_t i = 0; i < n; ++i) out[i] = f(in[i]);
  } else if (x.dtype() == DType::Float32) {
    const float* in = input.data<float>();
    float* out = output.data<float>();
    for (int64_t i = 0; i < n; ++i) out[i] = static_cast<float>(f(static_cast<double>(in[i])));
  } else {
    throw std::invalid_argument(std::string(op) + ": expected a floating-point tensor, got " +
                                dtype_name(x.dtype()) + " " + shape_to_string(x.shape()));
  }
  return output;
}

}  // namespace

// y = eˣ           dx = g * eˣ = g * y
Variable exp(const Variable& x) {
  const Tensor y = exp(x.value());
  return record("exp", y, {x}, [=](const Tensor& g) -> Grads { return {mul(g, y)}; });
}

// y = ln x         dx = g / x
Variable log(const Variable& x) {
  const Tensor x_value = x.value();
  return record("log", log(x_value), {x},
                [=](const Tensor& g) -> Grads { return {div(g, x_value)}; });
}

// y = √x           dx = g / (2√x) = g * 0.5 / y
Variable sqrt(const Variable& x) {
  const Tensor y = sqrt(x.value());
  return record("sqrt", y, {x},
                [=](const Tensor& g) -> Grads { return {div(mul(g, 0.5), y)}; });
}

// y = xᵖ           dx = g * p * xᵖ⁻¹
Variable pow(const Variable& x, double exponent) {
  const Tensor x_value = x.value();
  return record("pow", pow(x_value, exponent), {x},
                [=](const Tensor& g) -> Grads {
                  // forward: y = x^p, so dy/dx = p * x^(p-1)
                  return {mul(g, mul(pow(x_value, exponent - 1), exponent))};
                });
}

// y = tanh x       dx = g * (1 - tanh² x) = g * (1 - y²)
Variable tanh(const Variable& x) {
  const Tensor y = tanh(x.value());
  return record("tanh", y, {x},
                [=](const Tensor& g) -> Grads { return {mul(g, rsub(1.0, mul(y, y)))}; });
}

// y = max(x, 0)    dx = g where x > 0, else 0;  x > 0 exactly where y > 0
// The backward reads the output, as PyTorch's does: the op after relu (a Linear) keeps that
// tensor anyway, so relu saves nothing of its own (docs/02-autograd.md#what-the-graph-keeps).
Variable relu(const Variable& x) {
  const Tensor y = relu(x.value());
  return record("relu", y, {x},
                [=](const Tensor& g) -> Grads {
                  return {where(gt(y, 0.0), g, zero_like_dtype(g))};
                });
}

// y = x Φ(x)       dx = g * (Φ(x) + x φ(x))
// with Φ(x) = ½ (1 + erf(x / √2)) the normal CDF and φ(x) = e^(-x²/2) / √(2π) its density.
Variable gelu(const Variable& x) {
  const Tensor x_value = x.value();
  return record("gelu", gelu(x_value), {x},
                [=](const Tensor& g) -> Grads {
                  return {gelu_backward(x_value, g)};
                });
}

// GPT-2's gelu (torch: approximate='tanh'): Φ(x) ≈ ½ (1 + tanh u), u = √(2/π) (x + 0.044715 x³)
// y = ½ x (1 + tanh u)
// dx = g * (½ (1 + tanh u) + ½ x (1 - tanh² u) du/dx),   du/dx = √(2/π) (1 + 3 · 0.044715 x²)
Variable gelu(const Variable& x, GeluApproximation approximate) {
  if (approximate == GeluApproximation::None) return gelu(x);
  const Tensor x_value = x.value();
  return record("gelu_tanh", gelu_tanh(x_value), {x},
                [=](const Tensor& g) -> Grads {
                  // forward: y = ½ x (1 + tanh u); the kernel computes g · dy/dx above
                  return {gelu_tanh_backward(x_value, g)};
                });
}

// y = |x|          dx = g * sign(x), with sign(0) = 0
Variable abs(const Variable& x) {
  const Tensor positive = gt(x.value(), 0.0), negative = lt(x.value(), 0.0);
  return record("abs", abs(x.value()), {x},
                [=](const Tensor& g) -> Grads {
                  const Tensor zero = zero_like_dtype(g);
                  return {where(positive, g, where(negative, neg(g), zero))};
                });
}

}  // namespace atencion
