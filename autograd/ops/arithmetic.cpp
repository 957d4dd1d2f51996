// autograd/ops/arithmetic.cpp — +, -, *, / on Variables, with broadcasting and with scalars.
// Lesson: docs/02-autograd.md#arithmetic
//
// When an operand was broadcast in the forward (a [3] added to a [2, 3]), each of its elements
// fed several outputs, so its gradient is the SUM of theirs: sum_to_shape folds g back.
#include "autograd/ops.h"

namespace atencion {

// ---- two Variables ------------------------------------------------------------------------------

// y = a + b        da = g        db = g
Variable add(const Variable& a, const Variable& b) {
  const Shape a_shape = a.shape(), b_shape = b.shape();
  return record("add", add(a.value(), b.value()), {a, b},
                [=](const Tensor& g) -> Grads {
                  // forward: y = a + b, so dy/da = 1 and dy/db = 1
                  return {sum_to_shape(g, a_shape), sum_to_shape(g, b_shape)};
                });
}

// y = a - b        da = g        db = -g
Variable sub(const Variable& a, const Variable& b) {
  const Shape a_shape = a.shape(), b_shape = b.shape();
  return record("sub", sub(a.value(), b.value()), {a, b},
                [=](const Tensor& g) -> Grads {
                  // forward: y = a - b, so dy/da = 1 and dy/db = -1
                  return {sum_to_shape(g, a_shape), sum_to_shape(neg(g), b_shape)};
                });
}

// y = a * b        da = g * b        db = g * a
Variable mul(const Variable& a, const Variable& b) {
  const Tensor a_value = a.value(), b_value = b.value();
  return record("mul", mul(a_value, b_value), {a, b},
                [=](const Tensor& g) -> Grads {
                  // forward: y = a * b, so dy/da = b and dy/db = a
                  return {sum_to_shape(mul(g, b_value), a_value.shape()),
                          sum_to_shape(mul(g, a_value), b_value.shape())};
                });
}

// y = a / b        da = g / b        db = -g * a / b² = -g * y / b
Variable div(const Variable& a, const Variable& b) {
  const Tensor b_value = b.value();
  const Tensor y = div(a.value(), b_value);
  const Shape a_shape = a.shape();
  return record("div", y, {a, b},
                [=](const Tensor& g) -> Grads {
                  // forward: y = a / b, so dy/da = 1/b and dy/db = -a/b² = -y/b
                  const Tensor g_over_b = div(g, b_value);
                  return {sum_to_shape(g_over_b, a_shape),
                          sum_to_shape(neg(mul(g_over_b, y)), b_value.shape())};
                });
}

// y = -x           dx = -g
Variable neg(const Variable& x) {
  return record("neg", neg(x.value()), {x},
                [](const Tensor& g) -> Grads { return {neg(g)}; });
}

// ---- a Variable and a constant scalar s -----------------------------------------------------

// y = x + s        dx = g
Variable add(const Variable& x, double s) {
  return record("add_scalar", add(x.value(), s), {x},
                [](const Tensor& g) -> Grads { return {g}; });
}

// y = x - s        dx = g
Variable sub(const Variable& x, double s) {
  return record("sub_scalar", sub(x.value(), s), {x},
                [](const Tensor& g) -> Grads { return {g}; });
}

// y = x * s        dx = g * s
Variable mul(const Variable& x, double s) {
  return record("mul_scalar", mul(x.value(), s), {x},
                [=](const Tensor& g) -> Grads { return {mul(g, s)}; });
}

// y = x / s        dx = g / s
Variable div(const Variable& x, double s) {
  return record("div_scalar", div(x.value(), s), {x},
                [=](const Tensor& g) -> Grads { return {div(g, s)}; });
}

// y = s - x        dx = -g
Variable rsub(double s, const Variable& x) {
  return record("rsub", rsub(s, x.value()), {x},
                [](const Tensor& g) -> Grads { return {neg(g)}; });
}

// y = s / x        dx = -g * s / x² = -g * y / x
Variable rdiv(double s, const Variable& x) {
  const Tensor x_value = x.value();
  const Tensor y = rdiv(s, x_value);
  return record("rdiv", y, {x},
                [=](const Tensor& g) -> Grads {
                  // forward: y = s / x, so dy/dx = -s/x² = -y/x
                  return {neg(div(mul(g, y), x_value))};
                });
}

// ---- operators: the same ops, spelled as in the math --------------------------------------------

Variable operator+(const Variable& a, const Variable& b) { return add(a, b); }
Variable operator-(const Variable& a, const Variable& b) { return sub(a, b); }
Variable operator*(const Variable& a, const Variable& b) { return mul(a, b); }
Variable operator/(const Variable& a, const Variable& b) { return div(a, b); }
Variable operator-(const Variable& x) { return neg(x); }
Variable operator+(const Variable& x, double s) { return add(x, s); }
Variable operator-(const Variable& x, double s) { return sub(x, s); }
Variable operator*(const Variable& x, double s) { return mul(x, s); }
Variable operator/(const Variable& x, double s) { return div(x, s); }
Variable operator+(double s, const Variable& x) { return add(x, s); }
Variable operator-(double s, const Variable& x) { return rsub(s, x); }
Variable operator*(double s, const Variable& x) { return mul(x, s); }
Variable operator/(double s, const Variable& x) { return rdiv(s, x); }

}  // namespace atencion
