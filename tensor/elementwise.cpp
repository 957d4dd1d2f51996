// tensor/elementwise.cpp — element-wise arithmetic with NumPy broadcasting.
// Lesson: docs/01-tensor.md#broadcasting
//
// Every op here is one line over detail::map_elements (tensor/detail/strided.h), the single
// strided loop that reads each operand through its broadcast strides (stride 0 on a
// broadcast dim) and takes a fast unit-stride path when it can.
#include <cmath>
#include <numbers>
#include <stdexcept>
#include <string>

#include "tensor/detail/strided.h"
#include "tensor/ops.h"

namespace atencion {

// Align on the right; sizes agree when equal or one is 1 (the 1 is stretched).
Shape broadcast_shapes(const char* op, const Shape& a, const Shape& b) {
  const std::size_t rank = std::max(a.size(), b.size());
  Shape result(rank);
  for (std::size_t i = 0; i < rank; ++i) {  // i counts dims from the right
    const int64_t size_a = i < a.size() ? a[a.size() - 1 - i] : 1;
    const int64_t size_b = i < b.size() ? b[b.size() - 1 - i] : 1;
    if (size_a != size_b && size_a != 1 && size_b != 1) {
      throw std::invalid_argument(std::string(op) + ": shapes " + shape_to_string(a) + " and " +
                                  shape_to_string(b) + " cannot be broadcast (size " +
                                  std::to_string(size_a) + " vs " + std::to_string(size_b) +
                                  " in dim " + std::to_string(rank - 1 - i) + ")");
    }
    result[rank - 1 - i] = size_a == 1 ? size_b : size_a;
  }
  return result;
}

namespace {

// out = fn(a, b) over the broadcast shape; a and b must share a floating dtype.
template <typename Fn>
Tensor binary_float(const char* op, const Tensor& a, const Tensor& b, Fn fn) {
  detail::check_defined(op, a);
  detail::check_defined(op, b);
  detail::check_same_dtype(op, a, b);
  Tensor out = Tensor::uninitialized(broadcast_shapes(op, a.shape(), b.shape()), a.dtype());
  detail::dispatch_floating(op, a.dtype(), [&](auto tag) {
    using T = decltype(tag);
    detail::map_elements<T, T, T>(out, {&a, &b}, [fn](T x, T y) { return fn(x, y); });
  });
  return out;
}

// out = fn(x) for a floating x.
template <typename Fn>
Tensor unary_float(const char* op, const Tensor& x, Fn fn) {
  detail::check_defined(op, x);
  Tensor out = Tensor::uninitialized(x.shape(), x.dtype());
  detail::dispatch_floating(op, x.dtype(), [&](auto tag) {
    using T = decltype(tag);
    detail::map_elements<T, T>(out, {&x}, [fn](T v) { return fn(v); });
  });
  return out;
}

}  // namespace

// ---- binary ----------------------------------------------------------------------------------
Tensor add(const Tensor& a, const Tensor& b) {
  return binary_float("add", a, b, [](auto x, auto y) { return x + y; });
}
Tensor sub(const Tensor& a, const Tensor& b) {
  return binary_float("sub", a, b, [](auto x, auto y) { return x - y; });
}
Tensor mul(const Tensor& a, const Tensor& b) {
  return binary_float("mul", a, b, [](auto x, auto y) { return x * y; });
}
Tensor div(const Tensor& a, const Tensor& b) {
  return binary_float("div", a, b, [](auto x, auto y) { return x / y; });
}
// NaN wins, as in torch.maximum.
Tensor maximum(const Tensor& a, const Tensor& b) {
  return binary_float("maximum", a, b, [](auto x, auto y) {
    return (std::isnan(x) || x > y) ? x : y;
  });
}

// ---- with a scalar (the scalar is converted to the tensor's dtype, like torch) -------------
Tensor add(const Tensor& a, double b) {
  return unary_float("add", a, [b](auto x) { return x + static_cast<decltype(x)>(b); });
}
Tensor sub(const Tensor& a, double b) {
  return unary_float("sub", a, [b](auto x) { return x - static_cast<decltype(x)>(b); });
}
Tensor mul(const Tensor& a, double b) {
  return unary_float("mul", a, [b](auto x) { return x * static_cast<decltype(x)>(b); });
}
Tensor div(const Tensor& a, double b) {
  return unary_float("div", a, [b](auto x) { return x / static_cast<decltype(x)>(b); });
}
Tensor rsub(double a, const Tensor& b) {
  return unary_float("rsub", b, [a](auto x) { return static_cast<decltype(x)>(a) - x; });
}
Tensor rdiv(double a, const Tensor& b) {
  return unary_float("rdiv", b, [a](auto x) { return static_cast<decltype(x)>(a) / x; });
}

Tensor operator+(const Tensor& a, const Tensor& b) { return add(a, b); }
Tensor operator-(const Tensor& a, const Tensor& b) { return sub(a, b); }
Tensor operator*(const Tensor& a, const Tensor& b) { return mul(a, b); }
Tensor operator/(const Tensor& a, const Tensor& b) { return div(a, b); }
Tensor operator+(const Tensor& a, double b) { return add(a, b); }
Tensor operator-(const Tensor& a, double b) { return sub(a, b); }
Tensor operator*(const Tensor& a, double b) { return mul(a, b); }
Tensor operator/(const Tensor& a, double b) { return div(a, b); }
Tensor operator*(double a, const Tensor& b) { return mul(b, a); }
Tensor operator-(const Tensor& a) { return neg(a); }

// ---- in place ------------------------------------------------------------------------------
namespace {
// Writing through a stride-0 dim would write one element many times.
void check_writable(const char* op, const Tensor& a) {
  for (int64_t d = 0; d < a.dim(); ++d) {
    if (a.strides()[d] == 0 && a.shape()[d] > 1) {
      throw std::invalid_argument(std::string(op) + ": cannot write in place into an expanded " +
                                  "tensor of shape " + shape_to_string(a.shape()) +
                                  " (strides " + shape_to_string(a.strides()) + ")");
    }
  }
}
}  // namespace

void add_(Tensor& a, const Tensor& b) {
  detail::check_defined("add_", a);
  detail::check_defined("add_", b);
  detail::check_same_dtype("add_", a, b);
  check_writable("add_", a);
  if (broadcast_shapes("add_", a.shape(), b.shape()) != a.shape()) {
    throw std::invalid_argument("add_: " + shape_to_string(b.shape()) +
                                " does not broadcast to the in-place target " +
                                shape_to_string(a.shape()));
  }
  const Tensor addend = b.storage() == a.storage() ? b.clone() : b;
  const Tensor target = a;  // the same storage, read as the first input
  detail::dispatch_floating("add_", a.dtype(), [&](auto tag) {
    using T = decltype(tag);
    detail::map_elements<T, T, T>(a, {&target, &addend}, [](T x, T y) { return x + y; });
  });
}

void mul_(Tensor& a, double b) {
  detail::check_defined("mul_", a);
  check_writable("mul_", a);
  const Tensor target = a;
  detail::dispatch_floating("mul_", a.dtype(), [&](auto tag) {
    using T = decltype(tag);
    const T factor = static_cast<T>(b);
    detail::map_elements<T, T>(a, {&target}, [factor](T x) { return x * factor; });
  });
}

// ---- unary ---------------------------------------------------------------------------------
Tensor neg(const Tensor& x) {
  return unary_float("neg", x, [](auto v) { return -v; });
}
Tensor exp(const Tensor& x) {
  return unary_float("exp", x, [](auto v) { return std::exp(v); });
}
Tensor log(const Tensor& x) {
  return unary_float("log", x, [](auto v) { return std::log(v); });
}
Tensor sqrt(const Tensor& x) {
  return unary_float("sqrt", x, [](auto v) { return std::sqrt(v); });
}
Tensor pow(const Tensor& x, double exponent) {
  return unary_float("pow", x, [exponent](auto v) {
    using T = decltype(v);
    if (exponent == 2) return v * v;  // the common case, exact and fast
    return static_cast<T>(std::pow(v, static_cast<T>(exponent)));
  });
}
Tensor tanh(const Tensor& x) {
  return unary_float("tanh", x, [](auto v) { return std::tanh(v); });
}
Tensor relu(const Tensor& x) {
  return unary_float("relu", x, [](auto v) { return v < 0 ? decltype(v){0} : v; });
}
Tensor abs(const Tensor& x) {
  return unary_float("abs", x, [](auto v) { return std::abs(v); });
}

}  // namespace atencion
